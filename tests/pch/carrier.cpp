// Compiles tests/CMakeLists.txt's precompiled test headers, which the test executables reuse; it has
// no code of its own.
