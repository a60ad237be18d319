// libdbus, the D-Bus reference library (pkg-config dbus-1, Debian libdbus-1-dev); only
// Monitoring's BlueZ scanner imports it.
#include <dbus/dbus.h>
