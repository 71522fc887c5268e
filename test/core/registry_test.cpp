// core/registry.cpp on its own: the live-handle registry answers "not live"
// for every value that is not a live handle of that kind, whatever was
// added and removed before; a removed handle's slot makes no value look live.
#include <cstdint>

#include <catch2/catch.hpp>

#include "core/object.h"

namespace registry = parasol::core::registry;
using parasol::core::ObjectKind;

namespace {

const void* at(std::uintptr_t address) { return reinterpret_cast<const void*>(address); }

}  // namespace

TEST_CASE("a removed handle leaves no value looking live") {
  // 0x8 hashes to the slot where the values 0x0-0xF start their probe.
  registry::add(at(0x8), ObjectKind::Mem);
  CHECK(registry::contains(at(0x8), ObjectKind::Mem));
  CHECK_FALSE(registry::contains(at(0x8), ObjectKind::Kernel));
  registry::remove(at(0x8), ObjectKind::Mem);
  CHECK_FALSE(registry::contains(at(0x8), ObjectKind::Mem));
  // Small integers read as handles (a kernel argument's value, a bad call).
  for (std::uintptr_t v = 1; v < 16; ++v) {
    INFO("value " << v);
    CHECK_FALSE(registry::contains(at(v), ObjectKind::Mem));
  }
}

TEST_CASE("handles added, removed and added again are found exactly while live") {
  std::uintptr_t base = 0x10000;
  for (int round = 0; round < 3; ++round) {
    for (std::uintptr_t i = 0; i < 200; ++i) registry::add(at(base + 16 * i), ObjectKind::Event);
    for (std::uintptr_t i = 0; i < 200; i += 2) registry::remove(at(base + 16 * i), ObjectKind::Event);
    for (std::uintptr_t i = 0; i < 200; ++i) {
      INFO("round " << round << ", handle " << i);
      CHECK(registry::contains(at(base + 16 * i), ObjectKind::Event) == (i % 2 == 1));
    }
    for (std::uintptr_t i = 1; i < 200; i += 2) registry::remove(at(base + 16 * i), ObjectKind::Event);
    for (std::uintptr_t v = 1; v < 16; ++v) CHECK_FALSE(registry::contains(at(v), ObjectKind::Event));
  }
}
