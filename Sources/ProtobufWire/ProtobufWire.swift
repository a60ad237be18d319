/// Protocol Buffers wire-format decoding over borrowed bytes, allocation-free
/// (https://protobuf.dev/programming-guides/encoding/): varints, zigzag, length-delimited
/// fields and packed repeated fields. The one copy shared by the OSM PBF reader and writer
/// (OSMImport) and the vector-tile codec (MapData). Hot paths are `@inlinable` so the callers'
/// decode loops inline them across the module boundary.

/// Why a protobuf message does not decode; callers turn it into their own error with the
/// place it happened (the PBF reader's `OSMError.corrupted` with the block offset, MapData's
/// `VectorTileError`).
public struct WireError: Error, Hashable, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

/// Protobuf wire types (encoding guide, "Message Structure").
public enum WireType: UInt8, Sendable {
    case varint = 0, fixed64 = 1, lengthDelimited = 2, startGroup = 3, endGroup = 4, fixed32 = 5
}

/// A forward cursor over a protobuf message or a packed field. Holds raw pointers: valid
/// only inside the `withUnsafeBytes` scope that made it.
public struct WireReader {
    @usableFromInline var position: UnsafePointer<UInt8>
    @usableFromInline let end: UnsafePointer<UInt8>

    public init(_ bytes: UnsafeRawBufferPointer) {
        let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(WireReader.emptyStorage)
        position = base
        end = base + bytes.count
    }

    // An empty buffer has no base address; point at one never-read byte instead.
    // nonisolated(unsafe): allocated once, never written after initialisation, never freed.
    @usableFromInline nonisolated(unsafe) static let emptyStorage: UnsafeMutablePointer<UInt8> = {
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        p.initialize(to: 0)
        return p
    }()

    public init() { self.init(UnsafeRawBufferPointer(start: nil, count: 0)) }

    /// Whether any bytes are left.
    @inlinable public var isAtEnd: Bool { position >= end }

    /// Bytes left.
    @inlinable public var remaining: Int { end - position }

    /// Reads a base-128 varint of at most 10 bytes.
    ///
    /// Fast paths: a one-byte value (most OSM deltas, tag indexes and MVT commands) returns at
    /// once wherever it sits; with 10 or more bytes left a whole varint is in bounds, so a
    /// longer one is read without a bounds check per byte. Near the end of the buffer every
    /// byte is checked.
    @inlinable
    public mutating func readVarint() throws(WireError) -> UInt64 {
        guard position < end else { throw WireError("varint runs past the end") }
        let b0 = position[0]
        if b0 < 0x80 {
            position += 1
            return UInt64(b0)
        }
        guard end - position >= WireReader.maximumVarintLength else { return try readVarintNearEnd() }
        let b1 = position[1]
        if b1 < 0x80 {
            position += 2
            return UInt64(b0 & 0x7F) | UInt64(b1) << 7
        }
        return try readLongVarint()
    }

    /// Longest varint: 10 bytes carry 64 bits, 7 per byte.
    @usableFromInline static let maximumVarintLength = 10

    /// A varint of three or more bytes with at least 10 bytes left: no per-byte bounds check.
    @usableFromInline
    mutating func readLongVarint() throws(WireError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        for i in 0..<WireReader.maximumVarintLength {
            let byte = position[i]
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 {
                position += i + 1
                return result
            }
            shift += 7
        }
        throw WireError("malformed varint")
    }

    /// A varint in the last 9 bytes of the buffer: every byte bounds-checked.
    @usableFromInline
    mutating func readVarintNearEnd() throws(WireError) -> UInt64 {
        guard position < end else { throw WireError("varint runs past the end") }
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while position < end {
            let byte = position.pointee
            position += 1
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
        throw WireError("malformed varint")
    }

    /// A zigzag-encoded signed varint (`sint32`/`sint64`).
    @inlinable
    public mutating func readSignedVarint() throws(WireError) -> Int64 {
        let v = try readVarint()
        return Int64(bitPattern: v >> 1) ^ -Int64(bitPattern: v & 1)
    }

    /// A plain `int32`/`int64` varint (two's complement).
    @inlinable
    public mutating func readInt64() throws(WireError) -> Int64 { Int64(bitPattern: try readVarint()) }

    /// A field key: number and wire type.
    @inlinable
    public mutating func readKey() throws(WireError) -> (field: UInt64, type: WireType) {
        let key = try readVarint()
        guard let type = WireType(rawValue: UInt8(key & 7)) else { throw WireError("unknown wire type \(key & 7)") }
        let field = key >> 3
        guard field > 0 else { throw WireError("field number 0") }
        return (field, type)
    }

    /// The bytes of a length-delimited field (after its key).
    @inlinable
    public mutating func readBytes() throws(WireError) -> UnsafeRawBufferPointer {
        let length = try readVarint()
        guard length <= UInt64(remaining) else { throw WireError("length \(length) runs past the end (\(remaining) bytes left)") }
        let bytes = UnsafeRawBufferPointer(start: position, count: Int(length))
        position += Int(length)
        return bytes
    }

    /// A little-endian `fixed32` (`float` bits, `fixed32`, `sfixed32`).
    @inlinable
    public mutating func readFixed32() throws(WireError) -> UInt32 {
        guard remaining >= 4 else { throw WireError("fixed32 runs past the end") }
        var v: UInt32 = 0
        for i in 0..<4 { v |= UInt32(position[i]) << (8 * UInt32(i)) }
        position += 4
        return v
    }

    /// A little-endian `fixed64` (`double` bits, `fixed64`, `sfixed64`).
    @inlinable
    public mutating func readFixed64() throws(WireError) -> UInt64 {
        guard remaining >= 8 else { throw WireError("fixed64 runs past the end") }
        var v: UInt64 = 0
        for i in 0..<8 { v |= UInt64(position[i]) << (8 * UInt64(i)) }
        position += 8
        return v
    }

    /// Skips the value of a field of this wire type.
    public mutating func skip(_ type: WireType) throws(WireError) {
        switch type {
        case .varint: _ = try readVarint()
        case .fixed64: try advance(8)
        case .fixed32: try advance(4)
        case .lengthDelimited: _ = try readBytes()
        case .startGroup, .endGroup: throw WireError("groups (wire types 3, 4) are not used by OSM PBF or MVT")
        }
    }

    @usableFromInline mutating func advance(_ n: Int) throws(WireError) {
        guard n <= remaining else { throw WireError("fixed-width field runs past the end") }
        position += n
    }

    /// Checks the wire type of a field the caller is about to read.
    @inlinable
    public static func expect(_ type: WireType, _ wanted: WireType, field: UInt64) throws(WireError) {
        guard type == wanted else { throw WireError("field \(field) has wire type \(type.rawValue), expected \(wanted.rawValue)") }
    }

    /// The number of varints in a packed field: the count of bytes without the continuation bit.
    public static func varintCount(_ bytes: UnsafeRawBufferPointer) -> Int {
        var n = 0
        for b in bytes where b < 0x80 { n += 1 }
        return n
    }
}

/// Protobuf wire-format encoding into a growable byte array (the PBF writer's half).
public struct WireWriter: Sendable {
    public var bytes: [UInt8] = []

    public init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    @inlinable
    public mutating func writeVarint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    @inlinable
    public mutating func writeSignedVarint(_ value: Int64) {
        writeVarint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    @inlinable
    public mutating func writeKey(_ field: UInt64, _ type: WireType) {
        writeVarint(field << 3 | UInt64(type.rawValue))
    }

    /// A varint field (`int32`, `int64`, `uint32`, `bool`, enums); negative `int` values take 10 bytes as in protobuf.
    public mutating func writeVarintField(_ field: UInt64, _ value: Int64) {
        writeKey(field, .varint)
        writeVarint(UInt64(bitPattern: value))
    }

    /// A `fixed32` field (a `float`'s bits).
    public mutating func writeFixed32Field(_ field: UInt64, _ value: UInt32) {
        writeKey(field, .fixed32)
        for i in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt32(i)))) }
    }

    /// A `fixed64` field (a `double`'s bits).
    public mutating func writeFixed64Field(_ field: UInt64, _ value: UInt64) {
        writeKey(field, .fixed64)
        for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
    }

    public mutating func writeSignedField(_ field: UInt64, _ value: Int64) {
        writeKey(field, .varint)
        writeSignedVarint(value)
    }

    public mutating func writeBytesField(_ field: UInt64, _ value: some Collection<UInt8>) {
        writeKey(field, .lengthDelimited)
        writeVarint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    public mutating func writeStringField(_ field: UInt64, _ value: String) {
        writeBytesField(field, Array(value.utf8))
    }

    /// A length-delimited field whose content is another writer's bytes.
    public mutating func writeMessageField(_ field: UInt64, _ message: WireWriter) {
        writeBytesField(field, message.bytes)
    }

    /// A packed field of plain varints, skipped when empty.
    public mutating func writePacked(_ field: UInt64, _ values: some Sequence<Int64>) {
        var inner = WireWriter()
        for v in values { inner.writeVarint(UInt64(bitPattern: v)) }
        if !inner.bytes.isEmpty { writeMessageField(field, inner) }
    }

    /// A packed field of zigzag varints, skipped when empty.
    public mutating func writePackedSigned(_ field: UInt64, _ values: some Sequence<Int64>) {
        var inner = WireWriter()
        for v in values { inner.writeSignedVarint(v) }
        if !inner.bytes.isEmpty { writeMessageField(field, inner) }
    }
}
