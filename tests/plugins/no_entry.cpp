// A shared library in a plugin folder that is not a plugin: no entry point.
extern "C" __attribute__((visibility("default"))) int no_entry_answer() { return 42; }
