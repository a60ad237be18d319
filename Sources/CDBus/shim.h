// libdbus, the D-Bus reference library (pkg-config dbus-1, Debian libdbus-1-dev); only
// Monitoring's BlueZ scanner uses it. The library is opened on first use, not linked: linked,
// every `geo` command loaded libdbus and the seven libraries it needs (libsystemd, libgcrypt,
// liblz4, libzstd, liblzma, libcap, libgpg-error) at start-up, 1.3 ms of CPU a process (a hello
// world linked with and without them, perf stat), and a machine without libdbus could not run
// `geo` at all; now only a beacon scan needs it.
#include <dbus/dbus.h>
#include "../CLazyLibrary/lazy_library.h"

/// The libdbus functions LocationKit calls, by name.
#define CDBUS_FUNCTIONS(X) \
    X(dbus_bus_add_match) X(dbus_bus_get_private) X(dbus_bus_register) \
    X(dbus_connection_close) X(dbus_connection_get_is_connected) X(dbus_connection_open_private) \
    X(dbus_connection_pop_message) X(dbus_connection_read_write) \
    X(dbus_connection_send_with_reply_and_block) X(dbus_connection_set_exit_on_disconnect) \
    X(dbus_connection_unref) X(dbus_error_free) X(dbus_error_init) X(dbus_error_is_set) \
    X(dbus_message_get_interface) X(dbus_message_get_member) X(dbus_message_get_path) \
    X(dbus_message_get_type) X(dbus_message_iter_append_basic) X(dbus_message_iter_close_container) \
    X(dbus_message_iter_get_arg_type) X(dbus_message_iter_get_basic) \
    X(dbus_message_iter_get_element_type) X(dbus_message_iter_get_fixed_array) \
    X(dbus_message_iter_init) X(dbus_message_iter_init_append) X(dbus_message_iter_next) \
    X(dbus_message_iter_open_container) X(dbus_message_iter_recurse) \
    X(dbus_message_new_method_call) X(dbus_message_unref) X(dbus_threads_init_default)

/// Those functions' table, `CDBusLibrary`, and `cdbus_open`, which opens the library by its soname
/// (libdbus-1.so.3, its ABI since 1.0) and fills it (CLazyLibrary/lazy_library.h).
LAZY_LIBRARY(CDBusLibrary, cdbus_open, "libdbus-1.so.3", CDBUS_FUNCTIONS)
