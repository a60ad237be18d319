import Foundation
import Synchronization
import Testing
import GeoCore
import GeoTestSupport
import NMEACodec
import Positioning

/// The fixes gpsd reported for a capture: the TPVs with a position in its regression output.
private func chkFixes(_ chk: URL) throws -> [String: GPSDMessage.TPV] {
    var out: [String: GPSDMessage.TPV] = [:]
    for line in try String(contentsOf: chk, encoding: .utf8).split(whereSeparator: \.isNewline) where line.hasPrefix("{\"class\":\"TPV\"") {
        if case .tpv(let t) = try GPSDMessage(json: String(line)), let time = t.time, t.mode >= 2 { out[time] = t }
    }
    return out
}

// The fixes come from a replay that ends: bounded, so a source that missed it fails instead of waiting forever.
@Test(.onOwnThread, .timeLimit(.minutes(3))) func gpsdSource_reportsTheFixesGpsdDecodes() async throws {
    guard let log = try Fixtures.url("nmea/nmea-rtk.log"), let chk = try Fixtures.url("nmea/nmea-rtk.log.chk") else { return }
    let expected = try chkFixes(chk)
    // Repeating: the source connects from a task of its own, which may start after the first pass.
    guard let fixes = try await GPSFake.withReplay(log: log, repeating: true, { gpsd in
        let source = GPSDSource(port: gpsd.port, initialBackoff: .milliseconds(50))
        var fixes: [Location] = []
        for try await event in source.events() {
            if case .location(let l) = event { fixes.append(l) }
            if fixes.count == 20 { break }
        }
        return fixes
    }) else { return }
    var compared = 0
    for fix in fixes {
        guard let tpv = expected[NMEAFix.isoString(fix.timestamp)], let lat = tpv.lat, let lon = tpv.lon else { continue }
        compared += 1
        #expect(abs(fix.coordinate.latitude - lat) < 1e-7 && abs(fix.coordinate.longitude - lon) < 1e-7, "at \(fix.timestamp)") // degrees
    }
    #expect(compared >= 15, "only \(compared) of \(fixes.count) fixes matched gpsd's regression output by time")
}

@Test(.onOwnThread) func gpsdSource_reportsLostWhenGpsdDies_andResumesWhenItReturns() async throws {
    guard let log = try Fixtures.url("nmea/nmea-rtk.log") else { return }
    let port = GPSFake.freePort()
    let source = GPSDSource(port: port, initialBackoff: .milliseconds(50), maximumBackoff: .milliseconds(400))
    let events = Mutex<[String]>([])
    let consumer = Task {
        for try await event in source.events() {
            events.withLock { e in
                switch event {
                case .location: e.append("fix")
                case .lost: e.append("lost")
                case .authorizationChanged: break
                }
            }
        }
    }
    defer { consumer.cancel() }
    guard try await GPSFake.withReplay(log: log, cycle: 0.05, port: port, { _ in
        #expect(await eventually { events.withLock { $0.filter { $0 == "fix" }.count >= 3 } })
    }) != nil else { return }
    #expect(await eventually { events.withLock { $0.last == "lost" } }, "the source reports lost while gpsd is gone")
    let before = events.withLock { $0.count }
    guard try await GPSFake.withReplay(log: log, cycle: 0.05, port: port, { _ in
        #expect(await eventually { events.withLock { $0.dropFirst(before).contains("fix") } }, "fixes resume after gpsd returns")
    }) != nil else { return }
    consumer.cancel()
    #expect(await eventually { source.activeRuns == 0 })
}
