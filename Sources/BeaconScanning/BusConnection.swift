#if canImport(CDBus)
import CDBus
import GeoCore

/// A value read from a D-Bus message (D-Bus Specification, "Type System"). Variants are
/// unwrapped to their value; every integer type reads as ``integer``; object paths and
/// signatures as ``string``; `ay` as ``bytes``.
indirect enum BusValue: Hashable {
    case string(String)
    case integer(Int64)
    case boolean(Bool)
    case double(Double)
    case bytes([UInt8])
    case array([BusValue])
    case dictionary([BusValue: BusValue])
    case structure([BusValue])
    /// A Unix file descriptor or a type this reader does not know.
    case unsupported

    var string: String? { if case .string(let s) = self { s } else { nil } }
    var integer: Int64? { if case .integer(let i) = self { i } else { nil } }
    var boolean: Bool? { if case .boolean(let b) = self { b } else { nil } }
    var bytes: [UInt8]? { if case .bytes(let b) = self { b } else { nil } }
    var array: [BusValue]? { if case .array(let a) = self { a } else { nil } }
    var dictionary: [BusValue: BusValue]? { if case .dictionary(let d) = self { d } else { nil } }

    /// The value under a string key of a dictionary (`a{s…}`, `a{o…}`).
    subscript(key: String) -> BusValue? { dictionary?[.string(key)] }
}

/// An argument of a method call: the few shapes BlueZ's methods take.
enum BusArgument {
    case string(String)
    case boolean(Bool)
    /// `a{sv}`, BlueZ's property dictionaries (`SetDiscoveryFilter`).
    case properties([(String, BusArgument)])
}

/// A D-Bus error: its name (`org.bluez.Error.NotReady`, `org.freedesktop.DBus.Error.ServiceUnknown`)
/// and message; the name `…Local.Disconnected` when the connection closed.
struct BusError: Error {
    var name: String
    var message: String

    static let disconnected = "org.freedesktop.DBus.Local.Disconnected"
    /// The name of the error when libdbus itself cannot be opened.
    static let libraryMissing = "org.locationkit.Error.LibDBusMissing"
}

/// libdbus's function table: immutable once loaded, C function pointers only.
extension CDBusLibrary: @retroactive @unchecked Sendable {}

/// libdbus, opened the first time a bus connection is made (`cdbus_open`, CDBus/shim.h).
private let libdbus: Result<CDBusLibrary, BusError> = {
    let library = UnsafeMutablePointer<CDBusLibrary>.allocate(capacity: 1)
    defer { library.deallocate() }
    if let message = cdbus_open(library) {
        return .failure(BusError(name: BusError.libraryMissing,
                                 message: "cannot open libdbus (Debian libdbus-1-3): \(String(cString: message))"))
    }
    return .success(library.pointee)
}()

/// A received signal: the emitting object, interface, member and arguments.
struct BusSignal {
    var path: String
    var interface: String
    var member: String
    var arguments: [BusValue]
}

/// A private connection to a D-Bus message bus through libdbus, for one thread at a time (its
/// owner's): blocking method calls with a timeout, match rules, and signals read with a timeout.
/// The process never exits when the bus goes away (libdbus's default for bus connections);
/// ``nextSignal(waiting:)`` throws instead.
final class BusConnection {
    private let dbus: CDBusLibrary
    private let connection: OpaquePointer

    /// Connects and registers with the bus at `address` (a D-Bus address such as
    /// `unix:path=/run/dbus/system_bus_socket`); nil is the system bus, from
    /// `DBUS_SYSTEM_BUS_ADDRESS` or libdbus's default socket.
    /// - Throws: ``BusError`` from libdbus, or named ``BusError/libraryMissing`` when libdbus
    ///   itself cannot be opened.
    init(address: String?) throws(BusError) {
        let dbus = try libdbus.get()
        self.dbus = dbus
        _ = dbus.dbus_threads_init_default()
        var error = DBusError()
        dbus.dbus_error_init(&error)
        defer { dbus.dbus_error_free(&error) }
        var opened: OpaquePointer?
        if let address {
            opened = dbus.dbus_connection_open_private(address, &error)
            if let link = opened, dbus.dbus_bus_register(link, &error) == 0 {
                dbus.dbus_connection_close(link)
                dbus.dbus_connection_unref(link)
                opened = nil
            }
        } else {
            opened = dbus.dbus_bus_get_private(DBUS_BUS_SYSTEM, &error)
        }
        guard let opened else { throw BusError(&error) }
        dbus.dbus_connection_set_exit_on_disconnect(opened, 0)
        connection = opened
    }

    deinit {
        dbus.dbus_connection_close(connection)
        dbus.dbus_connection_unref(connection)
    }

    /// Asks the bus to route the signals matching `rule` here (D-Bus Specification, "Match Rules").
    /// - Throws: ``BusError`` for a malformed rule or a bus that refuses it.
    func addMatch(_ rule: String) throws(BusError) {
        var error = DBusError()
        dbus.dbus_error_init(&error)
        defer { dbus.dbus_error_free(&error) }
        dbus.dbus_bus_add_match(connection, rule, &error)
        if dbus.dbus_error_is_set(&error) != 0 { throw BusError(&error) }
    }

    /// Calls a method and waits up to `timeout` for its reply's arguments.
    /// - Throws: ``BusError``: the error the method replied with, or libdbus's (no reply, disconnected).
    func call(_ destination: String, _ path: String, _ interface: String, _ member: String,
              _ arguments: [BusArgument] = [], timeout: Duration = .seconds(5)) throws(BusError) -> [BusValue] {
        guard let message = dbus.dbus_message_new_method_call(destination, path, interface, member) else {
            throw BusError(name: "org.freedesktop.DBus.Error.NoMemory", message: "cannot make a call to \(member)")
        }
        defer { dbus.dbus_message_unref(message) }
        var iterator = DBusMessageIter()
        dbus.dbus_message_iter_init_append(message, &iterator)
        for argument in arguments { append(argument, to: &iterator) }
        var error = DBusError()
        dbus.dbus_error_init(&error)
        defer { dbus.dbus_error_free(&error) }
        let milliseconds = Int32(clamping: timeout.milliseconds)
        guard let reply = dbus.dbus_connection_send_with_reply_and_block(connection, message, milliseconds, &error) else {
            throw BusError(&error)
        }
        defer { dbus.dbus_message_unref(reply) }
        return self.arguments(of: reply)
    }

    /// The next signal routed here, waiting at most `timeout` for one; nil when none came.
    /// - Throws: ``BusError`` named ``BusError/disconnected`` when the connection closed.
    func nextSignal(waiting timeout: Duration) throws(BusError) -> BusSignal? {
        var waited = false
        while true {
            guard let message = dbus.dbus_connection_pop_message(connection) else {
                if waited { return nil }
                waited = true
                let milliseconds = Int32(clamping: timeout.milliseconds)
                if dbus.dbus_connection_read_write(connection, milliseconds) == 0 || dbus.dbus_connection_get_is_connected(connection) == 0 {
                    throw BusError(name: BusError.disconnected, message: "the bus connection closed")
                }
                continue
            }
            defer { dbus.dbus_message_unref(message) }
            guard dbus.dbus_message_get_type(message) == DBUS_MESSAGE_TYPE_SIGNAL else { continue }
            let signal = BusSignal(path: dbus.dbus_message_get_path(message).map { String(cString: $0) } ?? "",
                                   interface: dbus.dbus_message_get_interface(message).map { String(cString: $0) } ?? "",
                                   member: dbus.dbus_message_get_member(message).map { String(cString: $0) } ?? "",
                                   arguments: arguments(of: message))
            if signal.interface == "org.freedesktop.DBus.Local", signal.member == "Disconnected" {
                throw BusError(name: BusError.disconnected, message: "the bus connection closed")
            }
            return signal
        }
    }

    // MARK: - Marshalling (D-Bus Specification, "Type System")

    private static func code(_ character: Character) -> Int32 { Int32(character.asciiValue!) }

    private func arguments(of message: OpaquePointer) -> [BusValue] {
        var iterator = DBusMessageIter()
        guard dbus.dbus_message_iter_init(message, &iterator) != 0 else { return [] }
        var values: [BusValue] = []
        repeat { values.append(read(&iterator)) } while dbus.dbus_message_iter_next(&iterator) != 0
        return values
    }

    /// The value at the iterator (which stays there).
    private func read(_ iterator: inout DBusMessageIter) -> BusValue {
        func basic<T>(_ zero: T) -> T {
            var value = zero
            withUnsafeMutablePointer(to: &value) { dbus.dbus_message_iter_get_basic(&iterator, $0) }
            return value
        }
        func elements(_ iterator: inout DBusMessageIter) -> [BusValue] {
            var inner = DBusMessageIter()
            dbus.dbus_message_iter_recurse(&iterator, &inner)
            var values: [BusValue] = []
            while dbus.dbus_message_iter_get_arg_type(&inner) != 0 {
                values.append(read(&inner))
                _ = dbus.dbus_message_iter_next(&inner)
            }
            return values
        }
        switch dbus.dbus_message_iter_get_arg_type(&iterator) {
        case Self.code("s"), Self.code("o"), Self.code("g"):
            return basic(UnsafePointer<CChar>?.none).map { .string(String(cString: $0)) } ?? .string("")
        case Self.code("y"): return .integer(Int64(basic(UInt8(0))))
        case Self.code("b"): return .boolean(basic(dbus_bool_t(0)) != 0)
        case Self.code("n"): return .integer(Int64(basic(Int16(0))))
        case Self.code("q"): return .integer(Int64(basic(UInt16(0))))
        case Self.code("i"): return .integer(Int64(basic(Int32(0))))
        case Self.code("u"): return .integer(Int64(basic(UInt32(0))))
        case Self.code("x"): return .integer(basic(Int64(0)))
        case Self.code("t"): return .integer(Int64(truncatingIfNeeded: basic(UInt64(0))))
        case Self.code("d"): return .double(basic(Double(0)))
        case Self.code("v"):
            var inner = DBusMessageIter()
            dbus.dbus_message_iter_recurse(&iterator, &inner)
            return read(&inner)
        case Self.code("r"): return .structure(elements(&iterator))
        case Self.code("a"):
            switch dbus.dbus_message_iter_get_element_type(&iterator) {
            case Self.code("y"):
                var inner = DBusMessageIter()
                dbus.dbus_message_iter_recurse(&iterator, &inner)
                var start: UnsafeRawPointer?
                var count: Int32 = 0
                withUnsafeMutablePointer(to: &start) { dbus.dbus_message_iter_get_fixed_array(&inner, $0, &count) }
                guard let start, count > 0 else { return .bytes([]) }
                return .bytes(Array(UnsafeRawBufferPointer(start: start, count: Int(count))))
            case Self.code("e"):
                var entries: [BusValue: BusValue] = [:]
                for entry in elements(&iterator) {
                    if case .structure(let pair) = entry, pair.count == 2 { entries[pair[0]] = pair[1] }
                }
                return .dictionary(entries)
            default:
                return .array(elements(&iterator))
            }
        case Self.code("e"): return .structure(elements(&iterator))
        default: return .unsupported
        }
    }

    private func append(_ argument: BusArgument, to iterator: inout DBusMessageIter) {
        switch argument {
        case .string(let text):
            text.withCString { characters in
                var pointer: UnsafePointer<CChar>? = characters
                _ = dbus.dbus_message_iter_append_basic(&iterator, Self.code("s"), &pointer)
            }
        case .boolean(let flag):
            var value: dbus_bool_t = flag ? 1 : 0
            _ = dbus.dbus_message_iter_append_basic(&iterator, Self.code("b"), &value)
        case .properties(let entries):
            var array = DBusMessageIter()
            _ = dbus.dbus_message_iter_open_container(&iterator, Self.code("a"), "{sv}", &array)
            for (key, value) in entries {
                var entry = DBusMessageIter()
                _ = dbus.dbus_message_iter_open_container(&array, Self.code("e"), nil, &entry)
                append(.string(key), to: &entry)
                var variant = DBusMessageIter()
                let signature = switch value { case .string: "s"; case .boolean: "b"; case .properties: "a{sv}" }
                _ = dbus.dbus_message_iter_open_container(&entry, Self.code("v"), signature, &variant)
                append(value, to: &variant)
                _ = dbus.dbus_message_iter_close_container(&entry, &variant)
                _ = dbus.dbus_message_iter_close_container(&array, &entry)
            }
            _ = dbus.dbus_message_iter_close_container(&iterator, &array)
        }
    }
}

extension BusError {
    /// The error libdbus set.
    fileprivate init(_ error: inout DBusError) {
        name = error.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed"
        message = error.message.map { String(cString: $0) } ?? name
    }
}
#endif
