"""Drives python3-dbusmock's bluez5 template (Debian python3-dbusmock) for BlueZScannerTests.

Run with the system's python3 and DBUS_SYSTEM_BUS_ADDRESS set to the private bus the mock is on:
    bluez_mock.py wait                                  until org.bluez is on the bus (30 s at most)
    bluez_mock.py add-adapter hci0                      an adapter, powered (the template's AddAdapter)
    bluez_mock.py add-device hci0 AA:BB:CC:DD:EE:FF     a device without advertising data (AddDevice)
    bluez_mock.py advertise PATH RSSI [m ID HEX] [s UUID HEX]
        a PropertiesChanged of Device1 with RSSI and ManufacturerData / ServiceData, as BlueZ
        sends for each advertisement with DuplicateData (the template's UpdateProperties cannot
        carry the a{qv} / a{sv} dictionaries, so the signal is emitted directly)
    bluez_mock.py appear hci0 AA:BB:CC:DD:EE:FF RSSI [m ID HEX] [s UUID HEX]
        InterfacesAdded of a new Device1 that already carries its advertising data
    bluez_mock.py discovering hci0                      prints the adapter's Discovering (true/false)
    bluez_mock.py power-off hci0                        Powered becomes false (PropertiesChanged)
    bluez_mock.py remove-adapter hci0                   the adapter goes away (InterfacesRemoved)
    bluez_mock.py deny hci0                             SetDiscoveryFilter answers org.bluez.Error.NotAuthorized
"""
import sys
import time

import dbus

bus = dbus.SystemBus()
cmd, args = sys.argv[1], sys.argv[2:]


def data(words):
    manufacturer, service = {}, {}
    for kind, key, hexdata in zip(words[0::3], words[1::3], words[2::3]):
        value = dbus.ByteArray(bytes.fromhex(hexdata), variant_level=1)
        if kind == "m":
            manufacturer[dbus.UInt16(int(key, 0))] = value
        else:
            service[dbus.String("0000%04x-0000-1000-8000-00805f9b34fb" % int(key, 0))] = value
    props = {}
    if manufacturer:
        props["ManufacturerData"] = dbus.Dictionary(manufacturer, signature="qv", variant_level=1)
    if service:
        props["ServiceData"] = dbus.Dictionary(service, signature="sv", variant_level=1)
    return props


def mock(path):
    return dbus.Interface(bus.get_object("org.bluez", path), "org.freedesktop.DBus.Mock")


if cmd == "wait":
    for _ in range(300):
        if bus.name_has_owner("org.bluez"):
            sys.exit(0)
        time.sleep(0.1)
    sys.exit("org.bluez did not appear on the bus")
elif cmd == "add-adapter":
    print(dbus.Interface(bus.get_object("org.bluez", "/"), "org.bluez.Mock").AddAdapter(args[0], "locationkit-test"))
elif cmd == "add-device":
    print(dbus.Interface(bus.get_object("org.bluez", "/"), "org.bluez.Mock").AddDevice(args[0], args[1], "beacon"))
elif cmd == "advertise":
    props = dbus.Dictionary(dict(data(args[2:]), RSSI=dbus.Int16(int(args[1]), variant_level=1)), signature="sv")
    mock(args[0]).EmitSignal("org.freedesktop.DBus.Properties", "PropertiesChanged", "sa{sv}as",
                             ["org.bluez.Device1", props, dbus.Array([], signature="s")])
elif cmd == "appear":
    path = "/org/bluez/%s/dev_%s" % (args[0], args[1].replace(":", "_").upper())
    props = dict(data(args[3:]), Address=dbus.String(args[1], variant_level=1),
                 RSSI=dbus.Int16(int(args[2]), variant_level=1),
                 Adapter=dbus.ObjectPath("/org/bluez/" + args[0], variant_level=1))
    mock("/").EmitSignal("org.freedesktop.DBus.ObjectManager", "InterfacesAdded", "oa{sa{sv}}",
                         [dbus.ObjectPath(path), dbus.Dictionary({"org.bluez.Device1": dbus.Dictionary(props, signature="sv")}, signature="sa{sv}")])
elif cmd == "discovering":
    adapter = bus.get_object("org.bluez", "/org/bluez/" + args[0])
    print("true" if adapter.Get("org.bluez.Adapter1", "Discovering", dbus_interface=dbus.PROPERTIES_IFACE) else "false")
elif cmd == "power-off":
    mock("/org/bluez/" + args[0]).UpdateProperties("org.bluez.Adapter1", {"Powered": dbus.Boolean(False)})
elif cmd == "remove-adapter":
    dbus.Interface(bus.get_object("org.bluez", "/"), "org.bluez.Mock").RemoveAdapter(args[0])
elif cmd == "deny":
    mock("/org/bluez/" + args[0]).AddMethod("org.bluez.Adapter1", "SetDiscoveryFilter", "a{sv}", "",
                                            'raise dbus.exceptions.DBusException("Not Authorized", name="org.bluez.Error.NotAuthorized")')
else:
    sys.exit("unknown command " + cmd)
