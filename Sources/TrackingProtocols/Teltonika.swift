public import GeoBase
import Platform
import GeoCore

/// One AVL record of a Teltonika Codec 8 or 8 Extended packet, field by field as the device sent
/// it (Teltonika wiki, "Teltonika Data Sending Protocols", Codec 8 and Codec 8 Extended).
public struct TeltonikaRecord: Sendable, Hashable {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var timestampMilliseconds: Int64
    /// 0 low, 1 high, 2 panic.
    public var priority: UInt8
    /// Degrees (the wire's two's-complement integer × 10⁻⁷).
    public var longitude: Double
    public var latitude: Double
    /// Metres above sea level.
    public var altitude: Int16
    /// Degrees clockwise from north.
    public var angle: UInt16
    /// Satellites in use; 0 means the GPS element holds no current fix.
    public var satellites: UInt8
    /// km/h.
    public var speedKilometersPerHour: UInt16
    /// The IO element that caused the record (0 for a periodic one).
    public var eventIOID: UInt16
    /// Fixed-size IO elements (1, 2, 4 and 8 bytes), by AVL ID, as unsigned big-endian values.
    public var io: [UInt16: UInt64]
    /// Codec 8E's variable-length IO elements, by AVL ID.
    public var variableIO: [UInt16: [UInt8]]

    public init(timestampMilliseconds: Int64, priority: UInt8 = 0, longitude: Double, latitude: Double, altitude: Int16 = 0,
                angle: UInt16 = 0, satellites: UInt8, speedKilometersPerHour: UInt16 = 0, eventIOID: UInt16 = 0,
                io: [UInt16: UInt64] = [:], variableIO: [UInt16: [UInt8]] = [:]) {
        (self.timestampMilliseconds, self.priority, self.longitude, self.latitude) = (timestampMilliseconds, priority, longitude, latitude)
        (self.altitude, self.angle, self.satellites, self.speedKilometersPerHour) = (altitude, angle, satellites, speedKilometersPerHour)
        (self.eventIOID, self.io, self.variableIO) = (eventIOID, io, variableIO)
    }
}

/// A decoded frame of a Teltonika TCP connection.
public enum TeltonikaFrame: Sendable {
    /// The first message: the device's IMEI. Reply `Teltonika.loginReply(accepted:)`.
    case login(imei: String)
    /// An AVL data packet. Reply `Teltonika.ackReply(count:)` with the number of records stored,
    /// after they are stored.
    case records([TeltonikaRecord], fixes: DecodedFixes)
}

/// Teltonika's TCP protocol with Codec 8 (0x08) and Codec 8 Extended (0x8E): a login of
/// 2-byte length + IMEI in ASCII, then packets of four zero bytes, a 4-byte data length, the
/// data (codec ID, record count, records, record count again) and a CRC-16/IBM of the data in 4
/// bytes. All integers are big-endian.
///
/// Feed a connection's bytes to `next(from:rules:)`: it takes one whole frame off the front of
/// the buffer, or returns nil until one has arrived. A length above `maximumPacketBytes` is
/// refused as soon as its 8-byte header is in, without waiting for (or buffering) the data.
public struct TeltonikaDecoder: Sendable {
    /// The IMEI from the login, once it has been read.
    public private(set) var imei: String?
    /// The longest data field accepted, bytes: 64 KiB (the wiki gives 1,280 bytes for FMB
    /// devices' packets; larger-memory models send more records a packet).
    public var maximumPacketBytes = 65_536
    /// Bytes taken off the connection so far, for error locations.
    public private(set) var consumed = 0

    public init() {}

    public mutating func next(from buffer: inout [UInt8], rules: DecodingRules) throws(TrackingProtocolError) -> TeltonikaFrame? {
        guard imei != nil else {
            guard buffer.count >= 2 else { return nil }
            let length = Int(buffer[0]) << 8 | Int(buffer[1])
            guard (1...32).contains(length) else {
                throw TrackingProtocolError(.malformed, "IMEI length \(length) is not 1…32", at: "byte \(consumed)")
            }
            guard buffer.count >= 2 + length else { return nil }
            let digits = buffer[2..<(2 + length)]
            guard digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                throw TrackingProtocolError(.malformed, "IMEI is not decimal digits", at: "byte \(consumed + 2)")
            }
            let text = String(decoding: digits, as: UTF8.self)
            self.imei = text
            take(2 + length, from: &buffer)
            return .login(imei: text)
        }
        guard buffer.count >= 8 else { return nil }
        guard buffer[0] == 0, buffer[1] == 0, buffer[2] == 0, buffer[3] == 0 else {
            throw TrackingProtocolError(.malformed, "packet does not start with four zero bytes", at: "byte \(consumed)")
        }
        let length = Int(Self.uint(buffer, 4, 4))
        guard length <= maximumPacketBytes else {
            throw TrackingProtocolError(.frameTooLong, "data length \(length) bytes is more than \(maximumPacketBytes)", at: "byte \(consumed + 4)")
        }
        guard length >= 3 else {
            throw TrackingProtocolError(.malformed, "data length \(length) is shorter than codec ID and two counts", at: "byte \(consumed + 4)")
        }
        guard buffer.count >= 12 + length else { return nil }
        let data = Array(buffer[8..<(8 + length)])
        let sent = Self.uint(buffer, 8 + length, 4)
        let computed = Teltonika.crc16IBM(data)
        guard sent == UInt64(computed) else {
            throw TrackingProtocolError(.checksumMismatch, "CRC-16/IBM of the data is \(computed), the packet says \(sent)", at: "byte \(consumed + 8 + length)")
        }
        let base = consumed + 8
        let records = try Self.records(data, base: base)
        take(12 + length, from: &buffer)
        var fixes = DecodedFixes()
        for (index, record) in records.enumerated() {
            do {
                fixes.fixes.append(try fix(record, rules: rules, at: "record \(index) of the packet at byte \(base - 8)"))
            } catch {
                fixes.rejected.append(error)
            }
        }
        return .records(records, fixes: fixes)
    }

    mutating func take(_ count: Int, from buffer: inout [UInt8]) {
        buffer.removeFirst(count)
        consumed += count
    }

    func fix(_ r: TeltonikaRecord, rules: DecodingRules, at location: String) throws(TrackingProtocolError) -> TrackedFix {
        let coordinate = try rules.coordinate(latitude: r.latitude, longitude: r.longitude, at: location)
        let time = try rules.time(Date(timeIntervalSince1970: Double(r.timestampMilliseconds) / 1000), at: location)
        let hasFix = r.satellites > 0
        let loc = Location(coordinate: coordinate, timestamp: time, altitude: .meters(Double(r.altitude)),
                           speed: hasFix ? .kilometersPerHour(Double(r.speedKilometersPerHour)) : nil,
                           course: hasFix ? .degrees(Double(r.angle)) : nil,
                           fixMode: hasFix ? nil : .noFix, satelliteCount: Int(r.satellites))
        return TrackedFix(device: imei ?? "", location: loc, source: .teltonika)
    }

    /// The records of a packet's data field (codec ID … second count), CRC already checked.
    static func records(_ d: [UInt8], base: Int) throws(TrackingProtocolError) -> [TeltonikaRecord] {
        let codec = d[0]
        guard codec == 0x08 || codec == 0x8E else {
            throw TrackingProtocolError(.unsupported, "codec 0x\(String(codec, radix: 16, uppercase: true)) (this decoder reads 0x08 and 0x8E)", at: "byte \(base)")
        }
        let extended = codec == 0x8E
        let count = Int(d[1])
        guard Int(d[d.count - 1]) == count else {
            throw TrackingProtocolError(.malformed, "record counts differ: \(count) at the start, \(d[d.count - 1]) at the end", at: "byte \(base + d.count - 1)")
        }
        var p = 2
        let end = d.count - 1
        func need(_ n: Int, _ what: String) throws(TrackingProtocolError) {
            guard p + n <= end else {
                throw TrackingProtocolError(.malformed, "data ends inside \(what)", at: "byte \(base + p)")
            }
        }
        func read(_ n: Int, _ what: String) throws(TrackingProtocolError) -> UInt64 {
            try need(n, what)
            defer { p += n }
            return uint(d, p, n)
        }
        var records: [TeltonikaRecord] = []
        for index in 0..<count {
            let what = "record \(index)"
            let timestamp = Int64(bitPattern: try read(8, what))
            let priority = UInt8(try read(1, what))
            let lon = Int32(bitPattern: UInt32(try read(4, what)))
            let lat = Int32(bitPattern: UInt32(try read(4, what)))
            let altitude = Int16(bitPattern: UInt16(try read(2, what)))
            let angle = UInt16(try read(2, what))
            let satellites = UInt8(try read(1, what))
            let speed = UInt16(try read(2, what))
            let idSize = extended ? 2 : 1
            let event = UInt16(try read(idSize, what))
            _ = try read(idSize, what) // total IO count; the per-size counts follow
            var io: [UInt16: UInt64] = [:], variable: [UInt16: [UInt8]] = [:]
            for size in [1, 2, 4, 8] {
                let n = Int(try read(idSize, what))
                for _ in 0..<n { io[UInt16(try read(idSize, what))] = try read(size, what) }
            }
            if extended {
                let n = Int(try read(2, what))
                for _ in 0..<n {
                    let id = UInt16(try read(2, what)), length = Int(try read(2, what))
                    try need(length, what)
                    variable[id] = Array(d[p..<(p + length)])
                    p += length
                }
            }
            records.append(TeltonikaRecord(timestampMilliseconds: timestamp, priority: priority, longitude: Double(lon) / 1e7,
                                           latitude: Double(lat) / 1e7, altitude: altitude, angle: angle, satellites: satellites,
                                           speedKilometersPerHour: speed, eventIOID: event, io: io, variableIO: variable))
        }
        guard p == end else {
            throw TrackingProtocolError(.malformed, "\(end - p) bytes after the last record", at: "byte \(base + p)")
        }
        return records
    }

    static func uint(_ b: [UInt8], _ at: Int, _ n: Int) -> UInt64 {
        var v: UInt64 = 0
        for i in at..<(at + n) { v = v << 8 | UInt64(b[i]) }
        return v
    }
}

public enum Teltonika {
    /// CRC-16/IBM (also CRC-16/ARC: polynomial 0x8005 reflected as 0xA001, initial value 0, no
    /// final XOR; check value 0xBB3D for "123456789"), as the wiki's packets carry it.
    public static func crc16IBM(_ bytes: some Sequence<UInt8>) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc ^= UInt16(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xA001 : crc >> 1 }
        }
        return crc
    }

    /// A device's login: the IMEI's length in 2 bytes, then its ASCII digits.
    public static func login(imei: String) -> [UInt8] {
        let digits = Array(imei.utf8)
        return [UInt8(digits.count >> 8 & 0xff), UInt8(digits.count & 0xff)] + digits
    }

    /// An AVL data packet of `records` as a device sends it, which `TeltonikaDecoder` reads back
    /// to the same records: Codec 8 Extended (2-byte IDs and counts, variable-length elements)
    /// when `extended`, else Codec 8. Each fixed-size IO value goes in the group of the fewest
    /// bytes (1, 2, 4 or 8) that holds it, IDs ascending within a group; coordinates are rounded
    /// to the wire's 10⁻⁷ degrees.
    /// - Precondition: 1…255 records; for Codec 8, IDs below 256 and no variable-length element.
    public static func packet(_ records: [TeltonikaRecord], extended: Bool) -> [UInt8] {
        precondition((1...255).contains(records.count), "a packet holds 1…255 records")
        var data: [UInt8] = [extended ? 0x8E : 0x08, UInt8(records.count)]
        func put(_ value: UInt64, _ bytes: Int) {
            for k in stride(from: bytes - 1, through: 0, by: -1) { data.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(k)))) }
        }
        let idSize = extended ? 2 : 1
        for r in records {
            precondition(extended || (r.variableIO.isEmpty && r.eventIOID < 256 && r.io.keys.allSatisfy { $0 < 256 }),
                         "Codec 8 has 1-byte IDs and no variable-length elements")
            put(UInt64(bitPattern: r.timestampMilliseconds), 8)
            put(UInt64(r.priority), 1)
            put(UInt64(UInt32(bitPattern: Int32((r.longitude * 1e7).rounded()))), 4)
            put(UInt64(UInt32(bitPattern: Int32((r.latitude * 1e7).rounded()))), 4)
            put(UInt64(UInt16(bitPattern: r.altitude)), 2)
            put(UInt64(r.angle), 2)
            put(UInt64(r.satellites), 1)
            put(UInt64(r.speedKilometersPerHour), 2)
            put(UInt64(r.eventIOID), idSize)
            put(UInt64(r.io.count + r.variableIO.count), idSize)
            let groups = Dictionary(grouping: r.io.sorted { $0.key < $1.key }) { element in
                [1, 2, 4].first { element.value >> (8 * UInt64($0)) == 0 } ?? 8
            }
            for size in [1, 2, 4, 8] {
                let group = groups[size] ?? []
                put(UInt64(group.count), idSize)
                for (id, value) in group { put(UInt64(id), idSize); put(value, size) }
            }
            if extended {
                put(UInt64(r.variableIO.count), 2)
                for (id, bytes) in r.variableIO.sorted(by: { $0.key < $1.key }) {
                    put(UInt64(id), 2); put(UInt64(bytes.count), 2)
                    data += bytes
                }
            }
        }
        data.append(UInt8(records.count))
        let length = UInt32(data.count), crc = crc16IBM(data)
        return [0, 0, 0, 0, UInt8(length >> 24), UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff)]
            + data + [0, 0, UInt8(crc >> 8), UInt8(crc & 0xff)]
    }

    /// The reply to a login: 0x01 accepts the device, 0x00 refuses it.
    public static func loginReply(accepted: Bool) -> [UInt8] { [accepted ? 1 : 0] }

    /// The reply to a packet: the number of records stored, 4 bytes big-endian. A device resends
    /// a packet whose count is not acknowledged.
    public static func ackReply(count: Int) -> [UInt8] {
        let c = UInt32(clamping: count)
        return [UInt8(c >> 24), UInt8(c >> 16 & 0xff), UInt8(c >> 8 & 0xff), UInt8(c & 0xff)]
    }
}
