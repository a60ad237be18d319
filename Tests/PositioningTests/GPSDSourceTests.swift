import Foundation
import Synchronization
import GeoBase
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
        let source = GPSDSource(port: gpsd.port, reconnect: ReconnectPolicy(initialBackoff: .milliseconds(50)))
        var fixes: [Location] = []
        for try await event in source.events() {
            if case .location(let l) = event { fixes.append(l) }
            if fixes.count == 20 { break }
        }
        return fixes
    }) else { return }
    var compared = 0
    for fix in fixes {
        guard let tpv = expected[ISO8601Time.string(from: fix.timestamp, fractionDigits: 3)], let lat = tpv.lat, let lon = tpv.lon else { continue }
        compared += 1
        #expect(abs(fix.coordinate.latitude - lat) < 1e-7 && abs(fix.coordinate.longitude - lon) < 1e-7, "at \(fix.timestamp)") // degrees
    }
    #expect(compared >= 15, "only \(compared) of \(fixes.count) fixes matched gpsd's regression output by time")
}

@Test(.onOwnThread) func gpsdSource_reportsLostWhenGpsdDies_andResumesWhenItReturns() async throws {
    guard let log = try Fixtures.url("nmea/nmea-rtk.log") else { return }
    let port = FreePort.take()
    let source = GPSDSource(port: port, reconnect: ReconnectPolicy(initialBackoff: .milliseconds(50), maximumBackoff: .milliseconds(400)))
    let events = Mutex<[String]>([])
    let consumer = Task {
        for try await event in source.events() {
            events.withLock { e in
                switch event {
                case .location: e.append("fix")
                case .lost: e.append("lost")
                case .authorizationChanged, .heading: break
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

/// gpsd's final word on each epoch of a capture: the last TPV with a position for each time in
/// its regression output, in order.
private func chkEpochs(_ chk: URL) throws -> [GPSDMessage.TPV] {
    var epochs: [GPSDMessage.TPV] = []
    for line in try String(contentsOf: chk, encoding: .utf8).split(whereSeparator: \.isNewline) where line.hasPrefix("{\"class\":\"TPV\"") {
        guard case .tpv(let t) = try GPSDMessage(json: String(line)), t.location != nil else { continue }
        if epochs.last?.time == t.time { epochs[epochs.count - 1] = t } else { epochs.append(t) }
    }
    return epochs
}

/// Checks one pass of delivered fixes against gpsd's last TPV of each epoch: one fix per epoch,
/// same position and accuracy.
private func expectOneFixPerEpoch(_ fixes: [Location], _ epochs: [GPSDMessage.TPV],
                          comparesAccuracy: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) {
    let times = fixes.map { ISO8601Time.string(from: $0.timestamp, fractionDigits: 3) }
    #expect(Set(times).count == times.count, "an epoch was delivered twice: \(times)", sourceLocation: sourceLocation)
    let expected = epochs.compactMap(\.time)
    let missing = expected.filter { !times.contains($0) }
    #expect(missing.isEmpty, "epochs not delivered: \(missing)", sourceLocation: sourceLocation)
    let byTime = Dictionary(epochs.map { ($0.time ?? "", $0) }, uniquingKeysWith: { $1 })
    for (fix, time) in zip(fixes, times) {
        guard let final = byTime[time]?.location else {
            Issue.record("\(time) is no epoch of gpsd's output", sourceLocation: sourceLocation)
            continue
        }
        // degrees; metres
        #expect(abs(fix.coordinate.latitude - final.coordinate.latitude) < 1e-9
                && abs(fix.coordinate.longitude - final.coordinate.longitude) < 1e-9, "at \(time)", sourceLocation: sourceLocation)
        #expect(fix.horizontalAccuracy != nil, "at \(time): no accuracy", sourceLocation: sourceLocation)
        if comparesAccuracy, let want = final.horizontalAccuracy?.meters {
            #expect(abs((fix.horizontalAccuracy?.meters ?? .nan) - want) < 1e-6, "accuracy at \(time)", sourceLocation: sourceLocation)
        }
    }
}

// quectel-eg25-g reports up to 11 TPVs per epoch (the first without an error estimate);
// nmea-rtk one per epoch; ublox-zed-f9p seven in its first epoch while gpsd learns the cycle.
// The installed gpsd (3.22) computes ublox-zed-f9p's `eph` from the previous epoch's DOPs, its
// .chk (a later gpsd) from the epoch's own, so only that log's positions are compared.
// A bound on a hang, not a measure: one pass took 59 s beside the other suites, and over 180 s
// on a loaded CI run (2026-12-01), where gpsfake's replay shares the two cores. gpsfake may run
// as long (`limit`): with its default 120 s, a replay slowed past that is killed, and the
// source, reconnecting to nothing, waits out the 8 minutes with no fix — the likeliest cause of
// a CI run (nmea-rtk, 2026-12-05) whose case got no fix in 8 minutes.
@Test(.onOwnThread, .timeLimit(.minutes(8)),
      arguments: [("quectel-eg25-g.log", true), ("nmea-rtk.log", true), ("ublox-zed-f9p-nmea.log", false)])
func gpsdSource_deliversOneFixPerEpoch_asGpsdsLastReport(_ name: String, comparesAccuracy: Bool) async throws {
    guard let log = try Fixtures.url("nmea/\(name)"), let chk = try Fixtures.url("nmea/\(name).chk") else { return }
    let epochs = try chkEpochs(chk)
    // Repeating, so one whole pass can be cut out: from the first wrap (time going back) to the next.
    guard let pass = try await GPSFake.withReplay(log: log, limit: 8 * 60, repeating: true, { gpsd in
        let source = GPSDSource(port: gpsd.port, reconnect: ReconnectPolicy(initialBackoff: .milliseconds(50)))
        var wraps = 0
        var pass: [Location] = []
        var previous: Date?
        for try await event in source.events() {
            guard case .location(let fix) = event else { continue }
            if let previous, fix.timestamp <= previous { wraps += 1 }
            previous = fix.timestamp
            if wraps == 2 { break }
            if wraps == 1 { pass.append(fix) }
        }
        return pass
    }) else { return }
    #expect(pass.count == epochs.count, "\(pass.count) fixes for gpsd's \(epochs.count) epochs")
    expectOneFixPerEpoch(pass, epochs, comparesAccuracy: comparesAccuracy)
}

@Test(.timeLimit(.minutes(1))) func gpsdSource_cycleEndDeliversThePendingEpoch() async throws {
    // A gpsd that reports one epoch in two TPVs and then falls silent: the second TPV's
    // accuracy is in the fix, which arrives without a next epoch, once the cycle ends.
    let first = #"{"class":"TPV","mode":2,"time":"2019-04-12T00:39:56.000Z","lat":-45.877567167,"lon":170.500111333}"#
    let second = #"{"class":"TPV","mode":3,"time":"2019-04-12T00:39:56.000Z","lat":-45.877567167,"lon":170.500111333,"altMSL":14.2,"eph":12.16}"#
    let server = try NMEATestServer(payload: Array((first + "\n" + second + "\n").utf8))
    defer { server.stop() }
    let port = server.port
    let source = GPSDSource(port: port, cycleEndSilence: .milliseconds(100))
    for try await event in source.events() {
        guard case .location(let fix) = event else { continue }
        #expect(abs((fix.horizontalAccuracy?.meters ?? 0) - 12.16 / NMEAErrorModel.horizontal95To68) < 1e-9) // metres
        #expect(fix.altitude?.meters == 14.2)
        break
    }
}
