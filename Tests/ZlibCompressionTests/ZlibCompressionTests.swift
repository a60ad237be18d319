import GeoBase
import GeoCore
import Foundation
import GeoTestSupport
import Testing
import ZlibCompression

/// Seeded test inputs: empty, tiny, repetitive text (compresses well) and noise (does not).
private func samples() -> [(name: String, bytes: [UInt8])] {
    var rng = SplitMix64(seed: 20261123)
    let noise = (0..<200_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    let text = Array(String(repeating: "<node id=\"1\" lat=\"43.73\" lon=\"7.42\"/>\n", count: 20_000).utf8)
    return [("empty", []), ("one byte", [0x2A]), ("text", text), ("noise", noise)]
}

@Test func zlib_roundTrip_everyLevel() throws {
    for (name, bytes) in samples() {
        for level in [0, 1, 6, 9] {
            let packed = try Zlib.deflate(bytes, level: level)
            let known = try packed.withUnsafeBytes { try Zlib.inflate($0, size: bytes.count) }
            #expect(known == bytes, "\(name), level \(level), known size")
            #expect(try Zlib.inflate(packed, limit: bytes.count) == bytes, "\(name), level \(level), unknown size")
        }
    }
    let text = samples()[2].bytes
    #expect(try Zlib.deflate(text).count < text.count / 20, "repetitive text compresses at least 20:1")
}

@Test func zlib_wrongSize_isSizeMismatch() throws {
    let bytes = Array("hello, hello, hello".utf8)
    let packed = try Zlib.deflate(bytes)
    for size in [bytes.count - 1, bytes.count + 1] {
        let error = #expect(throws: CompressionError.self) { try packed.withUnsafeBytes { try Zlib.inflate($0, size: size) } }
        #expect(error?.code == .sizeMismatch, "size \(size)")
    }
    let negative = #expect(throws: CompressionError.self) { try packed.withUnsafeBytes { try Zlib.inflate($0, size: -1) } }
    #expect(negative?.code == .invalidArgument)
}

@Test func zlib_truncatedOrCorrupt_isTypedError() throws {
    let text = samples()[2].bytes
    let packed = try Zlib.deflate(text)
    // Every cut of the stream, coarsely, including inside the 2-byte header.
    for cut in stride(from: 0, to: packed.count, by: max(1, packed.count / 40)) {
        let prefix = Array(packed[0..<cut])
        let known = #expect(throws: CompressionError.self) { try prefix.withUnsafeBytes { try Zlib.inflate($0, size: text.count) } }
        #expect(known?.code == .truncated || known?.code == .corrupt, "cut at \(cut): \(String(describing: known))")
        let unknown = #expect(throws: CompressionError.self) { try Zlib.inflate(prefix, limit: text.count) }
        #expect(unknown?.code == .truncated || unknown?.code == .corrupt, "cut at \(cut)")
    }
    var flipped = packed
    flipped[flipped.count / 2] ^= 0xFF
    #expect(throws: CompressionError.self, "a flipped byte inside the data") {
        try flipped.withUnsafeBytes { try Zlib.inflate($0, size: text.count) }
    }
    var badChecksum = packed
    badChecksum[badChecksum.count - 1] ^= 0xFF // the Adler-32 trailer (RFC 1950 §2.2)
    let checksum = #expect(throws: CompressionError.self) { try badChecksum.withUnsafeBytes { try Zlib.inflate($0, size: text.count) } }
    #expect(checksum?.code == .corrupt)
    let garbage = #expect(throws: CompressionError.self) { try Zlib.inflate(Array("not zlib at all".utf8), limit: 1 << 20) }
    #expect(garbage?.code == .corrupt)
}

@Test func deflate_badLevel_isInvalidArgument() {
    for level in [-1, 10] {
        let zlib = #expect(throws: CompressionError.self) { try Zlib.deflate([1, 2, 3], level: level) }
        #expect(zlib?.code == .invalidArgument)
        let gzip = #expect(throws: CompressionError.self) { try Gzip.compress([1, 2, 3], level: level) }
        #expect(gzip?.code == .invalidArgument)
    }
}

@Test func gzip_roundTrip() throws {
    for (name, bytes) in samples() {
        let packed = try Gzip.compress(bytes)
        #expect(Array(packed.prefix(2)) == [0x1F, 0x8B], "\(name): gzip magic")
        #expect(try Gzip.decompress(packed, limit: bytes.count) == bytes, "\(name)")
    }
}

@Test func gzip_concatenatedMembers_areOneStream() throws {
    let a = Array("first member\n".utf8), b = Array("second member\n".utf8)
    #expect(try Gzip.decompress(try Gzip.compress(a) + Gzip.compress(b), limit: a.count + b.count) == a + b)
}

@Test func gzip_ourOutput_readBySystemGzip() async throws {
    guard let gzip = GeoProcess.which("gzip") else {
        if Fixtures.isCI { Issue.record("gzip is not installed") }
        return
    }
    try await withTemporaryDirectory { dir in
        for (index, sample) in samples().enumerated() {
            let file = dir.appendingPathComponent("sample\(index).bin.gz")
            try Data(try Gzip.compress(sample.bytes, level: 9)).write(to: file)
            let result = try await GeoProcess.run(gzip, ["-d", "-f", file.path])
            #expect(result.status == 0, "\(sample.name): gzip -d says \(result.stderr)")
            let restored = try [UInt8](Data(contentsOf: dir.appendingPathComponent("sample\(index).bin")))
            #expect(restored == sample.bytes, "\(sample.name)")
        }
    }
}

@Test func gzip_systemGzipOutput_readByUs() async throws {
    guard let gzip = GeoProcess.which("gzip") else {
        if Fixtures.isCI { Issue.record("gzip is not installed") }
        return
    }
    try await withTemporaryDirectory { dir in
        for (index, sample) in samples().enumerated() {
            // gzip stores the file name and time in the header (FNAME, MTIME): both must be skipped.
            let file = dir.appendingPathComponent("sample\(index).bin")
            try Data(sample.bytes).write(to: file)
            let result = try await GeoProcess.run(gzip, ["-9", "-f", file.path])
            #expect(result.status == 0, "\(sample.name): gzip says \(result.stderr)")
            let packed = try [UInt8](Data(contentsOf: dir.appendingPathComponent("sample\(index).bin.gz")))
            #expect(try Gzip.decompress(packed, limit: sample.bytes.count) == sample.bytes, "\(sample.name)")
        }
    }
}

@Test func gzip_truncatedOrCorrupt_isTypedError() throws {
    let text = samples()[2].bytes
    let packed = try Gzip.compress(text)
    for cut in [0, 1, 5, 10, packed.count / 2, packed.count - 4, packed.count - 1] {
        let error = #expect(throws: CompressionError.self) { try Gzip.decompress(Array(packed[0..<cut]), limit: text.count) }
        #expect(error?.code == .truncated, "cut at \(cut) of \(packed.count): \(String(describing: error))")
    }
    var badCRC = packed
    badCRC[badCRC.count - 6] ^= 0x01 // CRC-32 of the trailer (RFC 1952 §2.3)
    let crc = #expect(throws: CompressionError.self) { try Gzip.decompress(badCRC, limit: text.count) }
    #expect(crc?.code == .corrupt)
    var badMagic = packed
    badMagic[0] = 0x00
    let magic = #expect(throws: CompressionError.self) { try Gzip.decompress(badMagic, limit: text.count) }
    #expect(magic?.code == .corrupt)
}

@Test func inflater_chunked_matchesWhole() throws {
    let text = samples()[2].bytes
    let packed = try Gzip.compress(text)
    let inflater = try Inflater(format: .automatic, limit: text.count)
    var output: [UInt8] = []
    for start in stride(from: 0, to: packed.count, by: 1000) {
        #expect(!inflater.isComplete, "complete before the last chunk at \(start)")
        try packed[start..<min(start + 1000, packed.count)].withUnsafeBytes { try inflater.inflate($0, into: &output) }
    }
    #expect(inflater.isComplete)
    #expect(output == text)
}

/// A gzip bomb — 64 members of 1 MiB of zeros each, 64 MiB from about 64 KiB — stops at the
/// stated limit with `.tooLarge` naming it, having produced no more than the limit; exactly the
/// limit passes. The streaming `Inflater` keeps what it made before the limit.
@Test func inflate_pastTheLimit_isTooLarge_atTheLimitPasses() throws {
    let member = try Gzip.compress([UInt8](repeating: 0, count: 1 << 20), level: 9)
    let bomb = [[UInt8]](repeating: member, count: 64).flatMap { $0 }
    #expect(bomb.count < 128 << 10, "64 MiB of zeros packs into under 128 KiB")
    #expect(try Gzip.decompress(bomb, limit: 64 << 20).count == 64 << 20, "exactly at the limit")
    for limit in [0, 1, 1 << 20, (32 << 20) + 1, (64 << 20) - 1] {
        let error = #expect(throws: CompressionError.self) { try Gzip.decompress(bomb, limit: limit) }
        #expect(error?.code == .tooLarge, "limit \(limit): \(String(describing: error))")
        #expect(error?.message.contains("limit of \(limit) bytes") == true, "limit \(limit): \(String(describing: error))")
    }
    let zlibBomb = try Zlib.deflate([UInt8](repeating: 7, count: 4 << 20))
    #expect((try? Zlib.inflate(zlibBomb, limit: 4 << 20))?.count == 4 << 20)
    #expect(throws: CompressionError.self) { try Zlib.inflate(zlibBomb, limit: 1 << 20) }
    let inflater = try Inflater(format: .gzip, limit: 3 << 20)
    var output: [UInt8] = []
    let error = #expect(throws: CompressionError.self) { try bomb.withUnsafeBytes { try inflater.inflate($0, into: &output) } }
    #expect(error?.code == .tooLarge)
    #expect(output.count == 3 << 20, "what came before the limit is kept, nothing past it")
    #expect(output.allSatisfy { $0 == 0 })
    #expect(throws: CompressionError.self) { try Inflater(format: .gzip, limit: -1) }
}

/// CRC-32 against the check value of the CRC catalogue (CRC-32/ISO-HDLC: "123456789" →
/// 0xCBF43926) and against the trailer the system `gzip` writes (RFC 1952 §2.3.1: CRC32, then
/// ISIZE, little-endian).
@Test func crc32_matchesTheCatalogueAndGzipsTrailer() async throws {
    #expect(Array("123456789".utf8).withUnsafeBytes { Zlib.crc32($0) } == 0xCBF4_3926)
    #expect([UInt8]().withUnsafeBytes { Zlib.crc32($0) } == 0)
    let gzip = try #require(GeoProcess.which("gzip"))
    try await withTemporaryDirectory { dir in
        for (index, sample) in samples().enumerated() {
            let file = dir.appendingPathComponent("sample\(index)")
            try Data(sample.bytes).write(to: file)
            let result = try await GeoProcess.run(gzip, ["-k", "-n", file.path])
            try #require(result.status == 0, "gzip: \(result.stderr)")
            let compressed = [UInt8](try Data(contentsOf: file.appendingPathExtension("gz")))
            let trailer = compressed.suffix(8).prefix(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            // In two pieces, to exercise `continuing:`.
            let half = sample.bytes.count / 2
            let crc = sample.bytes.withUnsafeBytes { raw in
                Zlib.crc32(UnsafeRawBufferPointer(rebasing: raw[half...]),
                           continuing: Zlib.crc32(UnsafeRawBufferPointer(rebasing: raw[..<half])))
            }
            #expect(crc == trailer, "\(sample.name)")
        }
    }
}

/// `zlib.compress(b"hello, world", 9)` and `zlib.compress(b"a" * 1000, 9)` from Python 3's
/// zlib module: streams made by another program than the one under test.
private let pythonHelloWorld: [UInt8] = [120, 218, 203, 72, 205, 201, 201, 215, 81, 40, 207, 47, 202, 73, 1, 0, 29, 84, 4, 137]
private let pythonThousandAs: [UInt8] = [120, 218, 75, 76, 28, 5, 163, 96, 20, 12, 119, 0, 0, 249, 216, 122, 248]

/// Inflates `input` with `inflater` to `size` bytes, returning a copy of the output.
private func inflated(_ inflater: SizedInflater, _ input: [UInt8], size: Int) throws -> [UInt8] {
    try input.withUnsafeBytes { raw in try inflater.inflate(raw, size: size) { [UInt8]($0) } }
}

@Test func sizedInflater_manyStreamsInTurn_eachExact() throws {
    let inflater = try SizedInflater()
    // Larger, smaller, larger again: the buffer grows and is reused, and so is the decompressor.
    #expect(try inflated(inflater, pythonHelloWorld, size: 12) == Array("hello, world".utf8))
    #expect(try inflated(inflater, pythonThousandAs, size: 1000) == [UInt8](repeating: 0x61, count: 1000))
    #expect(try inflated(inflater, pythonHelloWorld, size: 12) == Array("hello, world".utf8))
    for (name, bytes) in samples() {
        let packed = try Zlib.deflate(bytes, level: 6)
        #expect(try inflated(inflater, packed, size: bytes.count) == bytes, "\(name)")
    }
}

@Test func sizedInflater_badStream_typedErrorAndNextStreamStillInflates() throws {
    let inflater = try SizedInflater()
    let short = #expect(throws: CompressionError.self) { try inflated(inflater, pythonHelloWorld, size: 11) }
    #expect(short?.code == .sizeMismatch, "one byte more than the size given")
    let long = #expect(throws: CompressionError.self) { try inflated(inflater, pythonHelloWorld, size: 13) }
    #expect(long?.code == .sizeMismatch, "one byte fewer than the size given")
    var corrupt = pythonHelloWorld
    corrupt[corrupt.count - 1] ^= 0xFF // the Adler-32 trailer
    let checksum = #expect(throws: CompressionError.self) { try inflated(inflater, corrupt, size: 12) }
    #expect(checksum?.code == .corrupt)
    let truncated = #expect(throws: CompressionError.self) { try inflated(inflater, Array(pythonHelloWorld.dropLast(6)), size: 12) }
    #expect(truncated?.code == .corrupt, "libdeflate reports a truncated stream as bad data")
    let negative = #expect(throws: CompressionError.self) { try inflated(inflater, pythonHelloWorld, size: -1) }
    #expect(negative?.code == .invalidArgument)
    #expect(try inflated(inflater, pythonHelloWorld, size: 12) == Array("hello, world".utf8), "usable after errors")
}
