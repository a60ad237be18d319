// libFuzzer harness for NMEACodec: the scanner under every chunking, the sentence parser on
// every framed line (checksum or not), the epoch decoder, and the gpsd JSON codec.
// Built and run by scripts/fuzz.sh.
import NMEACodec
import FuzzSupport

/// The fuzz target: must not crash, hang or grow memory without bound for any input.
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let input = UnsafeRawBufferPointer(start: data, count: size)
    guard size > 0 else { return 0 }
    // The first byte picks a chunk size, so split reads are explored too.
    let chunk = Int(input[0] % 32) + 1
    let rest = UnsafeRawBufferPointer(rebasing: input[1...])

    var decoder = NMEADecoder(options: .init(scanner: .init(maximumLength: 96, acceptMissingChecksum: input[0] & 0x80 != 0)))
    var fixes = 0
    var start = 0
    while start < rest.count {
        let end = min(rest.count, start + chunk)
        decoder.decode(UnsafeRawBufferPointer(rebasing: rest[start..<end])) { fix in
            fixes += 1
            _ = fix.location
            _ = fix.isoTime
        }
        start = end
    }
    decoder.finish { _ in fixes += 1 }

    // Every candidate frame through the typed parser (bad checksums included).
    var scanner = NMEAScanner(options: .init(acceptMissingChecksum: true))
    scanner.scan(rest) { frame in
        _ = try? NMEASentence(body: frame.body)
        _ = NMEAScanner.checksumStatus(of: frame.bytes)
    }
    scanner.finish { frame in _ = try? NMEASentence(body: frame.body) }
    // The gpsd JSON codec on the raw bytes as text (round trip must re-decode).
    if let message = try? GPSDMessage(json: String(decoding: rest, as: UTF8.self)) {
        precondition((try? GPSDMessage(json: message.json())) != nil, "gpsd JSON round trip failed")
    }
    // Invariant: scanning whole equals the sum of what the chunked decoder's scanner saw.
    precondition(scanner.statistics.lines == decoder.scanner.statistics.lines, "line counts differ by chunking")
    return 0
}

runLibFuzzer(fuzzOneInput)
