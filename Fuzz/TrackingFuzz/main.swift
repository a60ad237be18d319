// libFuzzer harness for TrackingProtocols' decoders (issue 35, "every decoder is fuzzed"): the
// first byte picks OsmAnd (query, form or JSON), OwnTracks, Overland, GPSLogger or a Teltonika
// TCP stream; the rest is the input. Any bytes either decode or fail with the typed
// TrackingProtocolError; every fix decoded holds DecodingRules (finite coordinates in range, a
// time from 2000 to a day after `now`); the Teltonika decoder gives the same frames and the
// same error whatever the chunking of the stream. Built and run by scripts/fuzz.sh.
import Foundation
import FuzzSupport
import GeoCore
import TrackingProtocols

/// The request time of every input: fixed, so a run is reproducible.
let rules = DecodingRules(now: Date(timeIntervalSince1970: 1_767_225_600)) // 2026-01-01T00:00:00Z

func checkRules(_ fixes: [TrackedFix]) {
    for fix in fixes {
        let c = fix.location.coordinate
        precondition(c.latitude.isFinite && c.longitude.isFinite && abs(c.latitude) <= 90 && abs(c.longitude) <= 180,
                     "a decoded fix outside the coordinate ranges: \(c)")
        let t = fix.location.timestamp
        precondition(t >= rules.earliestFixTime && t.timeIntervalSince(rules.now) <= 86_400, "a decoded fix at \(t) outside the time rules")
    }
}

/// A Teltonika stream fed `chunk` bytes at a time: each frame (login, or records and fixes
/// counts) and the error that ended it, as text.
func teltonika(_ stream: [UInt8], chunk: Int) -> [String] {
    var decoder = TeltonikaDecoder()
    var buffer: [UInt8] = [], out: [String] = [], offset = 0
    while offset < stream.count {
        let end = min(stream.count, offset + chunk)
        buffer += stream[offset..<end]
        offset = end
        do {
            while let frame = try decoder.next(from: &buffer, rules: rules) {
                switch frame {
                case .login(let imei): out.append("login \(imei)")
                case .records(let records, let fixes):
                    checkRules(fixes.fixes)
                    precondition(fixes.fixes.count + fixes.rejected.count == records.count, "a record neither decoded nor refused")
                    out.append("records \(records.hashValue) fixes \(fixes.fixes.count)")
                }
            }
        } catch {
            out.append("error \(error)")
            return out
        }
    }
    return out
}

/// The fuzz target, for every input libFuzzer generates.
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    let selector = data[0]
    let input = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    // Up to the first NUL: the query (OsmAnd, GPSLogger) or the device hint; after it: the body.
    let split = input.firstIndex(of: 0) ?? input.count
    let head = String(decoding: input[..<split], as: UTF8.self)
    let body = split < input.count ? Array(input[(split + 1)...]) : []
    do {
        switch selector % 5 {
        case 0:
            let type: String? = selector & 0x80 != 0 ? "application/json" : (selector & 0x40 != 0 ? "application/x-www-form-urlencoded" : nil)
            checkRules(try OsmAnd.decode(query: Substring(head), body: body, contentType: type, rules: rules,
                                         speedUnit: { $0.count % 2 == 0 ? .metersPerSecond : .knots }))
        case 1:
            checkRules(try OwnTracks.decode(body: body, deviceHint: head.isEmpty ? nil : head, rules: rules))
        case 2:
            let decoded = try Overland.decode(body: body, deviceHint: head.isEmpty ? nil : head, rules: rules)
            checkRules(decoded.fixes)
        case 3:
            checkRules([try GPSLogger.decode(query: Substring(head), body: body, rules: rules)])
        default:
            let whole = teltonika(input, chunk: max(input.count, 1))
            let small = teltonika(input, chunk: Int(selector >> 3) + 1)
            precondition(whole == small, "Teltonika frames depend on the chunking: \(whole) vs \(small)")
        }
    } catch {
        return 0 // typed (TrackingProtocolError) by the signatures: the expected outcome for bad input
    }
    return 0
}

runLibFuzzer(fuzzOneInput)
