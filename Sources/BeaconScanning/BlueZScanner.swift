import Monitoring
public import Foundation
import Synchronization
#if canImport(CDBus)
import CDBus
#endif

/// A live beacon scanner on BlueZ, the Linux Bluetooth stack, over D-Bus (libdbus).
///
/// A scan finds the adapter (`org.bluez.Adapter1`, through BlueZ's `ObjectManager`), sets an LE
/// discovery filter with duplicate reports on (`SetDiscoveryFilter {Transport: le,
/// DuplicateData: true}`), starts discovery, and turns each advertisement BlueZ reports into
/// sightings: a device's `org.bluez.Device1` properties `ManufacturerData`, `ServiceData` and
/// `RSSI` as they arrive in `InterfacesAdded` and `PropertiesChanged` (BlueZ doc
/// org.bluez.Adapter.rst, org.bluez.Device.rst), parsed by ``BeaconAdvertisement``. BlueZ sends
/// only what changed, so a report with just a new RSSI repeats the device's last frames at that
/// RSSI. A frame that does not parse is skipped (a malformed advertisement from one device
/// costs only itself) and counted in ``BeaconScanStatistics``.
///
/// Failures end the stream with a ``MonitoringError``:
/// - `.bluetoothUnavailable`: no bus, BlueZ not on it, no such adapter, or the adapter powered off;
/// - `.bluetoothDenied`: the bus or BlueZ refused (`AccessDenied`, `NotAuthorized`, `NotPermitted`);
/// - `.bluetoothLost`: mid-scan, the adapter was removed or powered off, or BlueZ or the bus went away.
///
/// The scan runs on a thread of its own (libdbus blocks); it stops discovery and closes its
/// connection within about 0.1 s of its consumer leaving. Sightings are stamped with `now` on
/// arrival. Linux only (libdbus); elsewhere a scan fails with `.bluetoothUnavailable`.
public struct BlueZScanner: BeaconScanner {
    /// The adapter's name, e.g. `hci0`; nil scans on the first adapter BlueZ lists.
    public let adapter: String?
    /// The D-Bus address of the bus BlueZ is on; nil is the system bus (`DBUS_SYSTEM_BUS_ADDRESS`,
    /// else `/run/dbus/system_bus_socket`).
    public let busAddress: String?
    /// Counts of what the scans saw (shared by every scan of this scanner).
    public let statistics = BeaconScanStatistics()
    private let now: @Sendable () -> Date

    public init(adapter: String? = nil, busAddress: String? = nil, now: @escaping @Sendable () -> Date = { Date() }) {
        self.adapter = adapter.flatMap { $0.isEmpty ? nil : $0 }
        self.busAddress = busAddress
        self.now = now
    }

    public var name: String { "bluez:\(adapter ?? "")" }

    public func sightings() -> AsyncThrowingStream<BeaconSighting, any Error> {
        let (stream, output) = AsyncThrowingStream.makeStream(of: BeaconSighting.self, bufferingPolicy: .bufferingNewest(4096))
        #if canImport(CDBus)
        let stop = ScanStop()
        let scan = BlueZScan(adapter: adapter, busAddress: busAddress, now: now, statistics: statistics)
        let thread = Thread {
            do {
                try scan.run(until: stop) { output.yield($0) }
                output.finish()
            } catch {
                output.finish(throwing: error)
            }
        }
        output.onTermination = { _ in stop.requested.store(true, ordering: .relaxed) }
        thread.start()
        #else
        output.finish(throwing: MonitoringError(.bluetoothUnavailable, "BlueZ scanning needs Linux and libdbus", at: name))
        #endif
        return stream
    }
}

/// What a ``BlueZScanner``'s scans saw: advertisements with beacon frames, and frames skipped
/// because they did not parse.
public final class BeaconScanStatistics: Sendable {
    private let counts = Mutex((sightings: 0, malformed: 0))
    public var sightings: Int { counts.withLock { $0.sightings } }
    public var malformedFrames: Int { counts.withLock { $0.malformed } }
    func count(sightings: Int, malformed: Int) { counts.withLock { $0.sightings += sightings; $0.malformed += malformed } }
}

#if canImport(CDBus)
/// The flag a scan's stream sets when its consumer leaves; the scan's thread polls it.
private final class ScanStop: Sendable {
    let requested = Atomic(false)
}

/// Device1 properties as advertisements: what each BlueZ object last reported, so a report with
/// only a new RSSI still yields the device's frames (pure: property dictionaries in, sightings out).
struct BlueZDevices {
    private struct Device {
        var address: String?
        var rssi: Int?
        var manufacturerData: [UInt16: [UInt8]] = [:]
        var serviceData: [UInt16: [UInt8]] = [:]
    }
    private var devices: [String: Device] = [:]

    /// Takes a device's changed properties; returns the sightings of the advertisement they
    /// report (none when they hold no RSSI or advertising data, or no address is known yet),
    /// and the number of frames that did not parse.
    mutating func update(_ path: String, with properties: [BusValue: BusValue], at date: Date) -> (sightings: [BeaconSighting], malformed: Int) {
        var device = devices[path] ?? Device()
        if let address = properties[.string("Address")]?.string { device.address = address }
        let rssi = properties[.string("RSSI")]?.integer
        if let rssi { device.rssi = Int(rssi) }
        let manufacturer = properties[.string("ManufacturerData")]?.dictionary
        if let manufacturer {
            device.manufacturerData = [:]
            for (key, value) in manufacturer {
                if let id = key.integer, let bytes = value.bytes { device.manufacturerData[UInt16(truncatingIfNeeded: id)] = bytes }
            }
        }
        let service = properties[.string("ServiceData")]?.dictionary
        if let service {
            device.serviceData = [:]
            for (key, value) in service {
                if let uuid = key.string.flatMap(Self.shortUUID), let bytes = value.bytes { device.serviceData[uuid] = bytes }
            }
        }
        devices[path] = device
        guard rssi != nil || manufacturer != nil || service != nil, let address = device.address, let signal = device.rssi else { return ([], 0) }
        var sightings: [BeaconSighting] = []
        var malformed = 0
        func add(_ parse: () throws(MonitoringError) -> BeaconAdvertisement?) {
            do {
                if let advertisement = try parse() {
                    sightings.append(BeaconSighting(timestamp: date, address: address, rssi: signal, advertisement: advertisement))
                }
            } catch {
                malformed += 1
            }
        }
        for (id, bytes) in device.manufacturerData.sorted(by: { $0.key < $1.key }) { add { () throws(MonitoringError) in try BeaconAdvertisement(manufacturer: id, data: bytes) } }
        for (id, bytes) in device.serviceData.sorted(by: { $0.key < $1.key }) { add { () throws(MonitoringError) in try BeaconAdvertisement(serviceUUID: id, data: bytes) } }
        return (sightings, malformed)
    }

    /// Forgets a device BlueZ removed.
    mutating func remove(_ path: String) { devices[path] = nil }

    /// The 16-bit UUID of a 128-bit UUID on the Bluetooth base UUID
    /// (`0000XXXX-0000-1000-8000-00805f9b34fb`, Core Specification Vol 3 Part B §2.5.1).
    static func shortUUID(_ text: String) -> UInt16? {
        let lower = text.lowercased()
        guard lower.count == 36, lower.hasPrefix("0000"), lower.hasSuffix("-0000-1000-8000-00805f9b34fb") else { return nil }
        return UInt16(lower.dropFirst(4).prefix(4), radix: 16)
    }
}

/// One scan: the D-Bus conversation with BlueZ, on the scan's thread.
private struct BlueZScan: Sendable {
    let adapter: String?
    let busAddress: String?
    let now: @Sendable () -> Date
    let statistics: BeaconScanStatistics

    private static let service = "org.bluez"
    private static let adapterInterface = "org.bluez.Adapter1"
    private static let deviceInterface = "org.bluez.Device1"

    private var place: String { adapter ?? "bluez" }

    func run(until stop: ScanStop, _ deliver: (BeaconSighting) -> Void) throws(MonitoringError) {
        let bus: BusConnection
        do {
            bus = try BusConnection(address: busAddress)
            for rule in ["type='signal',sender='\(Self.service)',interface='org.freedesktop.DBus.ObjectManager'",
                         "type='signal',sender='\(Self.service)',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'",
                         "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(Self.service)'"] {
                try bus.addMatch(rule)
            }
        } catch {
            throw failure(error, starting: "cannot reach the system bus")
        }
        let objects: [BusValue: BusValue]
        do {
            objects = try bus.call(Self.service, "/", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects").first?.dictionary ?? [:]
        } catch {
            throw failure(error, starting: "cannot list BlueZ's objects")
        }
        let adapterPath = try chooseAdapter(in: objects)
        var devices = BlueZDevices()
        for (path, interfaces) in objects {
            guard let path = path.string, path.hasPrefix(adapterPath + "/"), let properties = interfaces[Self.deviceInterface]?.dictionary else { continue }
            _ = devices.update(path, with: properties, at: now())
        }
        do {
            _ = try bus.call(Self.service, adapterPath, Self.adapterInterface, "SetDiscoveryFilter",
                             [.properties([("Transport", .string("le")), ("DuplicateData", .boolean(true))])])
        } catch {
            throw failure(error, starting: "cannot set the LE discovery filter on \(adapterPath)")
        }
        do {
            _ = try bus.call(Self.service, adapterPath, Self.adapterInterface, "StartDiscovery")
        } catch {
            // InProgress: another client's discovery is running, and serves this scan too.
            if error.name != "org.bluez.Error.InProgress" { throw failure(error, starting: "cannot start discovery on \(adapterPath)") }
        }
        defer { _ = try? bus.call(Self.service, adapterPath, Self.adapterInterface, "StopDiscovery", timeout: .seconds(1)) }
        while !stop.requested.load(ordering: .relaxed) {
            let signal: BusSignal?
            do {
                signal = try bus.nextSignal(waiting: .milliseconds(100))
            } catch {
                throw MonitoringError(.bluetoothLost, "the system bus connection closed", at: place)
            }
            guard let signal else { continue }
            switch (signal.interface, signal.member) {
            case ("org.freedesktop.DBus", "NameOwnerChanged"):
                if signal.arguments.count == 3, signal.arguments[0].string == Self.service, signal.arguments[2].string == "" {
                    throw MonitoringError(.bluetoothLost, "BlueZ left the system bus", at: place)
                }
            case ("org.freedesktop.DBus.ObjectManager", "InterfacesAdded"):
                guard signal.arguments.count == 2, let path = signal.arguments[0].string, path.hasPrefix(adapterPath + "/"),
                      let properties = signal.arguments[1][Self.deviceInterface]?.dictionary else { continue }
                report(devices.update(path, with: properties, at: now()), deliver)
            case ("org.freedesktop.DBus.ObjectManager", "InterfacesRemoved"):
                guard signal.arguments.count == 2, let path = signal.arguments[0].string,
                      let interfaces = signal.arguments[1].array?.compactMap(\.string) else { continue }
                if path == adapterPath, interfaces.contains(Self.adapterInterface) {
                    throw MonitoringError(.bluetoothLost, "the adapter \(adapterPath) was removed", at: place)
                }
                if interfaces.contains(Self.deviceInterface) { devices.remove(path) }
            case ("org.freedesktop.DBus.Properties", "PropertiesChanged"):
                guard signal.arguments.count >= 2, let interface = signal.arguments[0].string,
                      let changed = signal.arguments[1].dictionary else { continue }
                if interface == Self.adapterInterface, signal.path == adapterPath, changed[.string("Powered")]?.boolean == false {
                    throw MonitoringError(.bluetoothLost, "the adapter \(adapterPath) was powered off", at: place)
                }
                if interface == Self.deviceInterface, signal.path.hasPrefix(adapterPath + "/") {
                    report(devices.update(signal.path, with: changed, at: now()), deliver)
                }
            default:
                continue
            }
        }
    }

    private func report(_ update: (sightings: [BeaconSighting], malformed: Int), _ deliver: (BeaconSighting) -> Void) {
        statistics.count(sightings: update.sightings.count, malformed: update.malformed)
        update.sightings.forEach(deliver)
    }

    /// The object path of the adapter to scan on: the one named, else the first; it must be powered.
    private func chooseAdapter(in objects: [BusValue: BusValue]) throws(MonitoringError) -> String {
        let adapters = objects.compactMap { path, interfaces -> (String, Bool)? in
            guard let path = path.string, let properties = interfaces[Self.adapterInterface] else { return nil }
            return (path, properties["Powered"]?.boolean ?? false)
        }.sorted { $0.0 < $1.0 }
        let names = adapters.map { $0.0.split(separator: "/").last.map(String.init) ?? $0.0 }
        guard let chosen = adapter.map({ name in adapters.first { $0.0 == "/org/bluez/\(name)" || $0.0 == name } }) ?? adapters.first else {
            let known = names.isEmpty ? "BlueZ has no adapter" : "BlueZ has \(names.joined(separator: ", "))"
            throw MonitoringError(.bluetoothUnavailable, adapter.map { "no adapter '\($0)': \(known)" } ?? "no Bluetooth adapter: \(known)", at: place)
        }
        guard chosen.1 else {
            throw MonitoringError(.bluetoothUnavailable, "the adapter \(chosen.0) is powered off", at: place)
        }
        return chosen.0
    }

    /// A D-Bus failure while starting, as a ``MonitoringError``: refusals are `.bluetoothDenied`,
    /// BlueZ missing or not ready `.bluetoothUnavailable`.
    private func failure(_ error: BusError, starting what: String) -> MonitoringError {
        switch error.name {
        case "org.freedesktop.DBus.Error.AccessDenied", "org.bluez.Error.NotAuthorized", "org.bluez.Error.NotPermitted":
            return MonitoringError(.bluetoothDenied, "\(what): \(error.name): \(error.message)", at: place)
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
            return MonitoringError(.bluetoothUnavailable, "BlueZ is not running (no org.bluez on the system bus)", at: place)
        case "org.bluez.Error.NotReady":
            return MonitoringError(.bluetoothUnavailable, "\(what): the adapter is not ready (powered off?)", at: place)
        default:
            return MonitoringError(.bluetoothUnavailable, "\(what): \(error.name): \(error.message)", at: place)
        }
    }
}
#endif
