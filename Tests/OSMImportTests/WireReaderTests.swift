import Testing
import GeoBase
import GeoCore
import ProtobufWire

/// Varint encodings from the Protocol Buffers encoding guide
/// (https://protobuf.dev/programming-guides/encoding/, "Base 128 Varints", "Signed Integers"):
/// the reader's fast path (ten or more bytes left) and its checked path near the end of the
/// buffer must agree with them.
private let guideVarints: [(bytes: [UInt8], value: UInt64)] = [
    ([0x00], 0),
    ([0x01], 1),
    ([0x7F], 127),
    ([0x96, 0x01], 150),
    ([0x80, 0x01], 128),
    ([0xFF, 0x7F], 16_383),
    ([0x80, 0x80, 0x01], 16_384),
    ([0xFF, 0xFF, 0xFF, 0xFF, 0x0F], 4_294_967_295),
    ([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F], UInt64(Int64.max)),
    // int64 -1: ten bytes, the last carrying bit 63.
    ([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01], UInt64.max),
]

/// Reads one varint from `bytes` followed by `padding` more bytes, and where the reader stopped.
private func readVarint(_ bytes: [UInt8], padding: Int) throws -> (value: UInt64, consumed: Int) {
    let buffer = bytes + [UInt8](repeating: 0x01, count: padding)
    return try buffer.withUnsafeBytes { raw in
        var r = WireReader(raw)
        let value = try r.readVarint()
        return (value, buffer.count - r.remaining)
    }
}

@Test(arguments: [0, 1, 9, 10, 20])
func varint_guideValues_decodeInBothPaths(padding: Int) throws {
    for (bytes, value) in guideVarints {
        let (read, consumed) = try readVarint(bytes, padding: padding)
        #expect(read == value, "\(bytes) with \(padding) bytes after")
        #expect(consumed == bytes.count, "\(bytes) with \(padding) bytes after")
    }
}

@Test(arguments: [0, 20])
func signedVarint_zigzagGuideValues(padding: Int) throws {
    // Encoding guide, "Signed Integers": zigzag maps 0, -1, 1, -2, … to 0, 1, 2, 3, ….
    let cases: [(UInt64, Int64)] = [(0, 0), (1, -1), (2, 1), (3, -2), (4_294_967_294, 2_147_483_647), (4_294_967_295, -2_147_483_648)]
    for (encoded, value) in cases {
        var w = WireWriter()
        w.writeVarint(encoded)
        let buffer = w.bytes + [UInt8](repeating: 0, count: padding)
        let read = try buffer.withUnsafeBytes { raw in
            var r = WireReader(raw)
            return try r.readSignedVarint()
        }
        #expect(read == value)
    }
}

@Test(arguments: [0, 20])
func varint_elevenBytes_isMalformed(padding: Int) {
    let eleven = [UInt8](repeating: 0x80, count: 10) + [0x01]
    #expect(throws: WireError.self) { try readVarint(eleven, padding: padding) }
}

@Test func varint_cutInTheMiddle_throwsInsteadOfReadingPastTheEnd() {
    for cut in 0..<10 {
        let cutVarint = [UInt8](repeating: 0xFF, count: cut)
        #expect(throws: WireError.self, "\(cut) continuation bytes and no end") { try readVarint(cutVarint, padding: 0) }
    }
}

/// Every value round-trips through the writer for a seeded sweep of bit lengths.
@Test func varint_writerRoundTrip_seededSweep() throws {
    var rng = SplitMix64(seed: 14)
    var values: [UInt64] = []
    for bits in 0...64 {
        for _ in 0..<8 {
            let z = rng.next()
            values.append(bits == 64 ? z : z & ((1 << UInt64(bits)) - 1))
        }
    }
    var w = WireWriter()
    for v in values { w.writeVarint(v) }
    let back = try w.bytes.withUnsafeBytes { raw in
        var r = WireReader(raw)
        var out: [UInt64] = []
        while !r.isAtEnd { out.append(try r.readVarint()) }
        return out
    }
    #expect(back == values)
}
