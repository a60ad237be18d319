public import Monitoring
public import Platform

/// What identifies a beacon: the identity each format broadcasts.
public enum BeaconIdentity: Hashable, Sendable, CustomStringConvertible {
    /// iBeacon (and an AltBeacon whose 20-byte ID is laid out the same way): proximity UUID,
    /// major and minor, as Core Location's `CLBeaconIdentityConstraint` names them.
    case uuid(UUID, major: UInt16, minor: UInt16)
    /// Eddystone-UID: a 10-byte namespace and a 6-byte instance.
    case eddystone(namespace: [UInt8], instance: [UInt8])

    public var description: String {
        switch self {
        case .uuid(let uuid, let major, let minor): "\(uuid.uuidString) \(major) \(minor)"
        case .eddystone(let n, let i): "\(hexadecimal(n)) \(hexadecimal(i))"
        }
    }
}

/// One beacon frame from a Bluetooth LE advertisement.
///
/// Formats, each with its specification:
/// - iBeacon: Apple's Proximity Beacon Specification R1 — manufacturer data of company 0x004C,
///   type 0x02, length 0x15, UUID, major, minor (big-endian), measured power at 1 m (int8).
/// - AltBeacon: AltBeacon Protocol Specification v1.0 (github.com/AltBeacon/spec) —
///   manufacturer data, beacon code 0xBEAC, a 20-byte ID, reference RSSI at 1 m, one reserved
///   byte.
/// - Eddystone: github.com/google/eddystone — service data of UUID 0xFEAA; UID (0x00), URL
///   (0x10) and unencrypted TLM (0x20) frames. Their Tx power is at 0 m; the spec puts 1 m at
///   41 dB less.
public enum BeaconAdvertisement: Hashable, Sendable {
    case iBeacon(uuid: UUID, major: UInt16, minor: UInt16, measuredPower: Int8)
    case altBeacon(manufacturer: UInt16, id: [UInt8], referenceRSSI: Int8, reserved: UInt8)
    case eddystoneUID(namespace: [UInt8], instance: [UInt8], txPowerAt0m: Int8)
    case eddystoneURL(url: String, txPowerAt0m: Int8)
    case eddystoneTLM(EddystoneTelemetry)

    /// The identity of an identifying frame (nil for URL and TLM frames). An AltBeacon's 20-byte
    /// ID reads as UUID, major and minor, the layout its specification suggests.
    public var identity: BeaconIdentity? {
        switch self {
        case .iBeacon(let uuid, let major, let minor, _): return .uuid(uuid, major: major, minor: minor)
        case .altBeacon(_, let id, _, _):
            return .uuid(uuidFrom(id[0..<16]), major: UInt16(id[16]) << 8 | UInt16(id[17]), minor: UInt16(id[18]) << 8 | UInt16(id[19]))
        case .eddystoneUID(let namespace, let instance, _): return .eddystone(namespace: namespace, instance: instance)
        case .eddystoneURL, .eddystoneTLM: return nil
        }
    }

    /// The received power expected at 1 m, dBm (Eddystone's 0 m power less 41 dB); nil for TLM.
    public var powerAt1m: Int? {
        switch self {
        case .iBeacon(_, _, _, let p): Int(p)
        case .altBeacon(_, _, let p, _): Int(p)
        case .eddystoneUID(_, _, let p), .eddystoneURL(_, let p): Int(p) - 41
        case .eddystoneTLM: nil
        }
    }

    /// Apple's company identifier (Bluetooth SIG assigned numbers).
    static let appleCompanyID: UInt16 = 0x004C
    /// The Eddystone service UUID, 16-bit.
    static let eddystoneServiceUUID: UInt16 = 0xFEAA

    /// The beacon frame in manufacturer-specific data (AD type 0xFF): `data` follows the
    /// company identifier. Nil when it is no iBeacon or AltBeacon.
    /// - Throws: ``MonitoringError`` `.malformedAdvertisement` for an iBeacon or AltBeacon prefix
    ///   with the wrong length.
    public init?(manufacturer: UInt16, data: [UInt8]) throws(MonitoringError) {
        if manufacturer == Self.appleCompanyID, data.count >= 2, data[0] == 0x02, data[1] == 0x15 {
            guard data.count == 23 else {
                throw MonitoringError(.malformedAdvertisement, "iBeacon: \(data.count) bytes after the company ID, expected 23")
            }
            self = .iBeacon(uuid: uuidFrom(data[2..<18]), major: UInt16(data[18]) << 8 | UInt16(data[19]),
                            minor: UInt16(data[20]) << 8 | UInt16(data[21]), measuredPower: Int8(bitPattern: data[22]))
        } else if data.count >= 2, data[0] == 0xBE, data[1] == 0xAC {
            guard data.count == 24 else {
                throw MonitoringError(.malformedAdvertisement, "AltBeacon: \(data.count) bytes after the company ID, expected 24")
            }
            self = .altBeacon(manufacturer: manufacturer, id: Array(data[2..<22]), referenceRSSI: Int8(bitPattern: data[22]), reserved: data[23])
        } else {
            return nil
        }
    }

    /// The Eddystone frame in service data (AD type 0x16) of 16-bit UUID 0xFEAA: `data`
    /// follows the UUID. Nil for another service or an Eddystone frame type not parsed here
    /// (EID, encrypted TLM).
    /// - Throws: ``MonitoringError`` `.malformedAdvertisement` for a UID, URL or TLM frame of the
    ///   wrong length or with a reserved URL byte.
    public init?(serviceUUID: UInt16, data: [UInt8]) throws(MonitoringError) {
        guard serviceUUID == Self.eddystoneServiceUUID, let frameType = data.first else { return nil }
        switch frameType {
        case 0x00:
            guard data.count == 18 || data.count == 20 else {
                throw MonitoringError(.malformedAdvertisement, "Eddystone-UID: \(data.count) bytes, expected 18 or 20")
            }
            self = .eddystoneUID(namespace: Array(data[2..<12]), instance: Array(data[12..<18]), txPowerAt0m: Int8(bitPattern: data[1]))
        case 0x10:
            guard (3...20).contains(data.count) else {
                throw MonitoringError(.malformedAdvertisement, "Eddystone-URL: \(data.count) bytes, expected 3 to 20")
            }
            self = .eddystoneURL(url: try Self.url(scheme: data[2], encoded: data[3...]), txPowerAt0m: Int8(bitPattern: data[1]))
        case 0x20:
            guard data.count >= 2, data[1] == 0x00 else { return nil } // version 1: encrypted (eTLM)
            guard data.count == 14 else {
                throw MonitoringError(.malformedAdvertisement, "Eddystone-TLM: \(data.count) bytes, expected 14")
            }
            self = .eddystoneTLM(EddystoneTelemetry(frame: data))
        default:
            return nil
        }
    }

    /// Every beacon frame in raw advertising data: the AD structures (length, type, data;
    /// Bluetooth Core Specification Vol 3 Part C §11) of an advertisement or scan response.
    /// A zero length ends the significant part (the rest is padding).
    /// - Throws: ``MonitoringError`` `.malformedAdvertisement` naming the offset of a structure that
    ///   overruns the data, or what a beacon frame's parser throws.
    public static func frames(inAdvertisingData bytes: [UInt8]) throws(MonitoringError) -> [BeaconAdvertisement] {
        var frames: [BeaconAdvertisement] = []
        var i = 0
        while i < bytes.count {
            let length = Int(bytes[i])
            if length == 0 { break }
            guard i + length < bytes.count else {
                throw MonitoringError(.malformedAdvertisement, "AD structure at byte \(i) has length \(length), only \(bytes.count - i - 1) bytes follow")
            }
            let type = bytes[i + 1], body = Array(bytes[(i + 2)..<(i + 1 + length)])
            if type == 0xFF, body.count >= 2, let frame = try BeaconAdvertisement(manufacturer: UInt16(body[0]) | UInt16(body[1]) << 8, data: Array(body[2...])) {
                frames.append(frame)
            } else if type == 0x16, body.count >= 2, let frame = try BeaconAdvertisement(serviceUUID: UInt16(body[0]) | UInt16(body[1]) << 8, data: Array(body[2...])) {
                frames.append(frame)
            }
            i += 1 + length
        }
        return frames
    }

    /// Eddystone-URL decoding: the scheme prefix byte, then printable ASCII with the expansion
    /// codes 0x00–0x0D for ".com/" … ".gov".
    private static func url(scheme: UInt8, encoded: ArraySlice<UInt8>) throws(MonitoringError) -> String {
        let schemes = ["http://www.", "https://www.", "http://", "https://"]
        let expansions = [".com/", ".org/", ".edu/", ".net/", ".info/", ".biz/", ".gov/",
                          ".com", ".org", ".edu", ".net", ".info", ".biz", ".gov"]
        guard Int(scheme) < schemes.count else {
            throw MonitoringError(.malformedAdvertisement, "Eddystone-URL: scheme prefix 0x\(hexadecimal([scheme])) is reserved")
        }
        var url = schemes[Int(scheme)]
        for (k, byte) in encoded.enumerated() {
            if Int(byte) < expansions.count {
                url += expansions[Int(byte)]
            } else if byte > 0x20 && byte < 0x7F {
                url.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                throw MonitoringError(.malformedAdvertisement, "Eddystone-URL: byte 0x\(hexadecimal([byte])) at offset \(3 + k) is reserved")
            }
        }
        return url
    }
}

/// An unencrypted Eddystone-TLM frame: the beacon's health (eddystone-tlm/tlm-plain.md).
public struct EddystoneTelemetry: Hashable, Sendable {
    /// Battery voltage, mV; nil when the beacon does not measure it (sent as 0).
    public var batteryMillivolts: Int?
    /// Temperature, °C (signed 8.8 fixed point); nil when not supported (sent as 0x8000).
    public var temperature: Double?
    /// Advertising frames sent since power-up or reboot.
    public var advertisementCount: UInt32
    /// Time since power-up or reboot (0.1 s resolution).
    public var uptime: Duration

    init(frame d: [UInt8]) {
        let battery = Int(d[2]) << 8 | Int(d[3])
        batteryMillivolts = battery == 0 ? nil : battery
        let rawTemperature = UInt16(d[4]) << 8 | UInt16(d[5])
        temperature = rawTemperature == 0x8000 ? nil : Double(Int16(bitPattern: rawTemperature)) / 256
        advertisementCount = d[6..<10].reduce(0) { $0 << 8 | UInt32($1) }
        uptime = .milliseconds(Int64(d[10..<14].reduce(0) { $0 << 8 | UInt32($1) }) * 100)
    }
}

private func uuidFrom(_ bytes: ArraySlice<UInt8>) -> UUID {
    let b = Array(bytes)
    return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
}

/// Lower-case hexadecimal digits of `bytes` (beacon identities as text, here and in `geo beacons`).
package func hexadecimal(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789abcdef")
    var s = ""
    for b in bytes { s.append(digits[Int(b >> 4)]); s.append(digits[Int(b & 15)]) }
    return s
}
