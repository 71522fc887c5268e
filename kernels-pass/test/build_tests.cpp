#include "executor.h"
#include <catch2/catch.hpp>
