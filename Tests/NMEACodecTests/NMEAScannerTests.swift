import Testing
import NMEACodec
import GeoBase

/// Frames every sentence of `text`, fed in chunks of `chunk` bytes.
private func frames(_ text: String, chunk: Int = .max, options: NMEAScanner.Options = .init()) -> [(String, NMEAFrameStatus, Int)] {
    var scanner = NMEAScanner(options: options)
    var out: [(String, NMEAFrameStatus, Int)] = []
    let bytes = Array(text.utf8)
    var start = 0
    while start < bytes.count {
        let end = min(bytes.count, start + chunk)
        bytes[start..<end].withUnsafeBytes { p in
            scanner.scan(p) { out.append(($0.text, $0.status, $0.line)) }
        }
        start = end
    }
    scanner.finish { out.append(($0.text, $0.status, $0.line)) }
    return out
}

private let gga = "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47"
private let rmc = "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A"

@Test func scan_crlfLines_framesEachSentence() {
    let f = frames("\(gga)\r\n\(rmc)\r\n")
    #expect(f.map(\.0) == [gga, rmc])
    #expect(f.map(\.1) == [.valid, .valid])
    #expect(f.map(\.2) == [1, 2])
}

@Test func scan_everyChunkSize_sameFrames() {
    let text = "# comment\n\(gga)\n\u{01}\u{FF}noise\(rmc)\r\n"
    let whole = frames(text).map(\.0)
    for size in 1...40 {
        #expect(frames(text, chunk: size).map(\.0) == whole, "chunk size \(size)")
    }
    #expect(whole == [gga, rmc])
}

@Test func scan_missingCR_andCRonly_endLines() {
    #expect(frames("\(gga)\n\(rmc)\n").map(\.0) == [gga, rmc])
    #expect(frames("\(gga)\r\(rmc)\r").map(\.0) == [gga, rmc])
}

@Test func scan_doubledDollar_restartsAtLastDollar() {
    let f = frames("$\(gga)\r\n")
    #expect(f.map(\.0) == [gga])
}

@Test func scan_sentenceCutByNextSentence_keepsTheSecond() {
    let f = frames("$GPGGA,030130\(rmc)\r\n")
    #expect(f.map(\.0) == ["$GPGGA,030130", rmc])
    #expect(f.map(\.1) == [.truncated, .valid])
}

@Test func scan_badChecksum_reportedNotAccepted() {
    let bad = String(gga.dropLast(2)) + "48"
    var scanner = NMEAScanner()
    var statuses: [NMEAFrameStatus] = []
    Array("\(bad)\r\n\(rmc)\r\n".utf8).withUnsafeBytes { p in scanner.scan(p) { statuses.append($0.status) } }
    #expect(statuses == [.badChecksum, .valid])
    #expect(scanner.statistics.badChecksum == 1)
    #expect(scanner.statistics.accepted == 1)
}

@Test func scan_missingChecksum_acceptedOnlyWhenOptedIn() {
    let bare = "$GPZDA,222449,25,10,2010,+00,00\r\n"
    #expect(frames(bare).map(\.1) == [.missingChecksum])
    #expect(frames(bare, options: .init(acceptMissingChecksum: true)).map(\.1) == [.valid])
}

@Test func scan_binaryInsideSentence_dropsOnlyThatSentence() {
    let f = frames("$GPGGA,12\u{00}3519\r\n\(rmc)\r\n")
    #expect(f.map(\.1) == [.binaryNoise, .valid])
    #expect(f.last?.0 == rmc)
}

@Test func scan_overlongLine_boundedAndReportedOnce() {
    let long = "$GP" + String(repeating: "A", count: 10_000) + "\r\n"
    for size in [1, 7, 4096] {
        let f = frames(long + rmc + "\r\n", chunk: size)
        #expect(f.map(\.1) == [.overlong, .valid], "chunk size \(size)")
        #expect((f.first?.0.utf8.count ?? 0) <= 164)
    }
}

@Test func scan_finalLineWithoutNewline_acceptedWhenChecksumValid() {
    #expect(frames(rmc).map(\.0) == [rmc])
    #expect(frames("$GPGGA,012530.562,4131.7353,N").map(\.1) == [.missingChecksum])
}

@Test func checksum_lowercaseHex_isValid() {
    let lower = String(rmc.dropLast(2)) + "6a"
    #expect(frames(lower).map(\.1) == [.valid])
    let s = Array("GNGSA,A,3,13,16,21,15,10,29,27,20,,,,,1.05,0.64,0.83,1".utf8)
    #expect(NMEAScanner.checksum(of: s) == 0x03)
}

@Test func checksum_fastPath_agreesWithBytewiseXOR() {
    // Bodies of every length 0...40, with and without a stray `*`, against a plain XOR.
    var rng = SplitMix64(seed: 42)
    for length in 0...40 {
        for trial in 0..<50 {
            var body = (0..<length).map { _ in UInt8.random(in: 0x20...0x7E, using: &rng) }.filter { $0 != 0x2A && $0 != 0x24 }
            if trial % 5 == 0, !body.isEmpty { body[body.count / 2] = 0x2A }
            let sum = body.reduce(0, ^)
            let text = "$" + String(decoding: body, as: UTF8.self) + "*" + hex(sum)
            let expected: NMEAFrameStatus = body.contains(0x2A) ? .badChecksum : .valid
            let got = Array(text.utf8).withUnsafeBytes { NMEAScanner.checksumStatus(of: $0) }
            #expect(got == expected, "\(text)")
        }
    }
}

/// A seeded generator (SplitMix64), so the sweep is repeatable.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Test func frameError_carriesLineColumnAndOffset() {
    var scanner = NMEAScanner()
    var errors: [NMEAError] = []
    Array("# x\n  $GPGGA,1*00\r\n".utf8).withUnsafeBytes { p in
        scanner.scan(p) { if let e = $0.error { errors.append(e) } }
    }
    #expect(errors.count == 1)
    #expect(errors.first?.code == .badChecksum)
    #expect(errors.first?.line == 2 && errors.first?.column == 3 && errors.first?.offset == 6)
}
