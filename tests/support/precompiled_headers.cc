// Compiled only to make the test binaries' precompiled headers (tests/CMakeLists.txt).
