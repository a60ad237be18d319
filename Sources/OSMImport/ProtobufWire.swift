/// Protocol Buffers wire-format decoding over borrowed bytes, allocation-free
/// (https://protobuf.dev/programming-guides/encoding/): varints, zigzag, length-delimited
/// fields and packed repeated fields.

/// Why a protobuf message does not decode; turned into `OSMError.corrupted` with the
/// block offset by the PBF reader.
struct WireError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

/// Protobuf wire types (encoding guide, "Message Structure").
enum WireType: UInt8 {
    case varint = 0, fixed64 = 1, lengthDelimited = 2, startGroup = 3, endGroup = 4, fixed32 = 5
}

/// A forward cursor over a protobuf message or a packed field. Holds raw pointers: valid
/// only inside the `withUnsafeBytes` scope that made it.
struct WireReader {
    private var position: UnsafePointer<UInt8>
    private let end: UnsafePointer<UInt8>

    init(_ bytes: UnsafeRawBufferPointer) {
        let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(WireReader.emptyStorage)
        position = base
        end = base + bytes.count
    }

    // An empty buffer has no base address; point at one never-read byte instead.
    // nonisolated(unsafe): allocated once, never written after initialisation, never freed.
    private nonisolated(unsafe) static let emptyStorage: UnsafeMutablePointer<UInt8> = {
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        p.initialize(to: 0)
        return p
    }()

    init() { self.init(UnsafeRawBufferPointer(start: nil, count: 0)) }

    /// Whether any bytes are left.
    @inline(__always) var isAtEnd: Bool { position >= end }

    /// Bytes left.
    @inline(__always) var remaining: Int { end - position }

    /// Reads a base-128 varint of at most 10 bytes.
    @inline(__always)
    mutating func readVarint() throws(WireError) -> UInt64 {
        guard position < end else { throw WireError("varint runs past the end") }
        let first = position.pointee
        position += 1
        if first < 0x80 { return UInt64(first) }
        var result = UInt64(first & 0x7F)
        var shift: UInt64 = 7
        while true {
            guard position < end, shift < 64 else { throw WireError("malformed varint") }
            let byte = position.pointee
            position += 1
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }

    /// A zigzag-encoded signed varint (`sint32`/`sint64`).
    @inline(__always)
    mutating func readSignedVarint() throws(WireError) -> Int64 {
        let v = try readVarint()
        return Int64(bitPattern: v >> 1) ^ -Int64(bitPattern: v & 1)
    }

    /// A plain `int32`/`int64` varint (two's complement).
    @inline(__always)
    mutating func readInt64() throws(WireError) -> Int64 { Int64(bitPattern: try readVarint()) }

    /// A field key: number and wire type.
    @inline(__always)
    mutating func readKey() throws(WireError) -> (field: UInt64, type: WireType) {
        let key = try readVarint()
        guard let type = WireType(rawValue: UInt8(key & 7)) else { throw WireError("unknown wire type \(key & 7)") }
        let field = key >> 3
        guard field > 0 else { throw WireError("field number 0") }
        return (field, type)
    }

    /// The bytes of a length-delimited field (after its key).
    @inline(__always)
    mutating func readBytes() throws(WireError) -> UnsafeRawBufferPointer {
        let length = try readVarint()
        guard length <= UInt64(remaining) else { throw WireError("length \(length) runs past the end (\(remaining) bytes left)") }
        let bytes = UnsafeRawBufferPointer(start: position, count: Int(length))
        position += Int(length)
        return bytes
    }

    /// Skips the value of a field of this wire type.
    mutating func skip(_ type: WireType) throws(WireError) {
        switch type {
        case .varint: _ = try readVarint()
        case .fixed64: try advance(8)
        case .fixed32: try advance(4)
        case .lengthDelimited: _ = try readBytes()
        case .startGroup, .endGroup: throw WireError("groups are not used in OSM PBF")
        }
    }

    private mutating func advance(_ n: Int) throws(WireError) {
        guard n <= remaining else { throw WireError("fixed-width field runs past the end") }
        position += n
    }

    /// Checks the wire type of a field the caller is about to read.
    @inline(__always)
    static func expect(_ type: WireType, _ wanted: WireType, field: UInt64) throws(WireError) {
        guard type == wanted else { throw WireError("field \(field) has wire type \(type.rawValue), expected \(wanted.rawValue)") }
    }

    /// The number of varints in a packed field: the count of bytes without the continuation bit.
    static func varintCount(_ bytes: UnsafeRawBufferPointer) -> Int {
        var n = 0
        for b in bytes where b < 0x80 { n += 1 }
        return n
    }
}

/// Protobuf wire-format encoding into a growable byte array (the PBF writer's half).
struct WireWriter {
    var bytes: [UInt8] = []

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    @inline(__always)
    mutating func writeVarint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    @inline(__always)
    mutating func writeSignedVarint(_ value: Int64) {
        writeVarint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    @inline(__always)
    mutating func writeKey(_ field: UInt64, _ type: WireType) {
        writeVarint(field << 3 | UInt64(type.rawValue))
    }

    /// A varint field (`int32`, `int64`, `uint32`, `bool`, enums); negative `int` values take 10 bytes as in protobuf.
    mutating func writeVarintField(_ field: UInt64, _ value: Int64) {
        writeKey(field, .varint)
        writeVarint(UInt64(bitPattern: value))
    }

    mutating func writeSignedField(_ field: UInt64, _ value: Int64) {
        writeKey(field, .varint)
        writeSignedVarint(value)
    }

    mutating func writeBytesField(_ field: UInt64, _ value: some Collection<UInt8>) {
        writeKey(field, .lengthDelimited)
        writeVarint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    mutating func writeStringField(_ field: UInt64, _ value: String) {
        writeBytesField(field, Array(value.utf8))
    }

    /// A length-delimited field whose content is another writer's bytes.
    mutating func writeMessageField(_ field: UInt64, _ message: WireWriter) {
        writeBytesField(field, message.bytes)
    }

    /// A packed field of plain varints, skipped when empty.
    mutating func writePacked(_ field: UInt64, _ values: some Sequence<Int64>) {
        var inner = WireWriter()
        for v in values { inner.writeVarint(UInt64(bitPattern: v)) }
        if !inner.bytes.isEmpty { writeMessageField(field, inner) }
    }

    /// A packed field of zigzag varints, skipped when empty.
    mutating func writePackedSigned(_ field: UInt64, _ values: some Sequence<Int64>) {
        var inner = WireWriter()
        for v in values { inner.writeSignedVarint(v) }
        if !inner.bytes.isEmpty { writeMessageField(field, inner) }
    }
}
