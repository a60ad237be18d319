import Foundation
import Testing
import GeoTestSupport
import NMEACodec
import SystemIO

/// The JSON objects `geo track` printed.
private func events(_ stdout: String) throws -> [[String: Any]] {
    try stdout.split(whereSeparator: \.isNewline).map { line in
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
    }
}

@Test(.onOwnThread) func track_fromGpsd_reportsTheFixesGpsdDecodes() async throws {
    guard let log = try Fixtures.url("nmea/nmea-rtk.log"), let chk = try Fixtures.url("nmea/nmea-rtk.log.chk") else { return }
    var expected: [String: (Double, Double)] = [:]
    for line in try String(contentsOf: chk, encoding: .utf8).split(whereSeparator: \.isNewline) where line.hasPrefix("{\"class\":\"TPV\"") {
        if case .tpv(let t) = try GPSDMessage(json: String(line)), let time = t.time, let lat = t.lat, let lon = t.lon { expected[time] = (lat, lon) }
    }
    guard let result = try await GPSFake.withReplay(log: log, { gpsd in
        try await GeoProcess.geo(["track", "--source", "gpsd://127.0.0.1:\(gpsd.port)", "--preset", "raw", "--count", "15", "--for", "60"])
    }) else { return }
    #expect(result.status == 0, "\(result.stderr)")
    let updates = try events(result.stdout).filter { $0["event"] as? String == "update" }
    #expect(updates.count == 15)
    var matched = 0
    for u in updates {
        guard let time = u["time"] as? String, let (lat, lon) = expected[time] else { continue }
        matched += 1
        #expect(abs((u["lat"] as? Double ?? 0) - lat) < 1e-7 && abs((u["lon"] as? Double ?? 0) - lon) < 1e-7, "at \(time)") // degrees
        #expect(u["stationary"] as? Bool == false)
    }
    #expect(matched >= 12, "only \(matched) of 15 updates matched gpsd's output by time")
}

@Test func track_fromAnNMEAFile_printsEveryDecodedFix() async throws {
    guard let log = try Fixtures.url("nmea/ublox-zed-f9p-nmea.log") else { return }
    let decoded = try await GeoProcess.geo(["nmea", "decode", log.path])
    let fixes = try events(decoded.stdout).filter { ($0["mode"] as? Int ?? 0) >= 2 }
    let tracked = try await GeoProcess.geo(["track", "--source", "nmea:\(log.path)", "--preset", "raw"])
    #expect(tracked.status == 0, "\(tracked.stderr)")
    let updates = try events(tracked.stdout).filter { $0["event"] as? String == "update" }
    #expect(updates.count == fixes.count)
    #expect(zip(updates, fixes).allSatisfy { $0["time"] as? String == $1["time"] as? String })
}

@Test func track_deviceWithoutPermission_reportsDenied() async throws {
    // Root may open anything, so the command runs as `nobody` (util-linux setpriv).
    guard let setpriv = GeoProcess.which("setpriv") else {
        if Fixtures.isCI { Issue.record("setpriv (util-linux) is required under CI") }
        return
    }
    let device = FileManager.default.temporaryDirectory.appendingPathComponent("ttyLK-\(UUID().uuidString)")
    #expect(FileManager.default.createFile(atPath: device.path, contents: Data(), attributes: [.posixPermissions: 0o600]))
    defer { try? FileManager.default.removeItem(at: device) }
    let result = try await GeoProcess.run(setpriv, ["--reuid=nobody", "--regid=nogroup", "--clear-groups",
                                              GeoProcess.geoExecutable.path, "track", "--source", "nmea://\(device.path)?baud=9600"])
    #expect(result.status != 0)
    let error = try #require(try events(result.stdout).first)
    #expect(error["event"] as? String == "error" && error["code"] as? String == "denied", "\(result.stdout) \(result.stderr)")
}

@Test func track_rejectsAMalformedSource() async throws {
    let result = try await GeoProcess.geo(["track", "--source", "gpsd://127.0.0.1:notaport"])
    #expect(result.status != 0)
    #expect(result.stderr.contains("port"))
}

@Test(.onOwnThread) func simulate_servesNMEAThatGpsdAndTrackRead() async throws {
    // geo simulate → NMEA over TCP → a real gpsd → geo track: the simulated fixes come back.
    let port = GPSFake.freePort()
    let simulator = try ChildProcess.spawn(.init(
        executable: GeoProcess.geoExecutable.path,
        arguments: ["simulate", "--nmea-tcp", String(port), "--interval", "0.2", "--count", "150"],
        standardOutput: .nullDevice, standardError: .nullDevice
    ))
    defer { simulator.kill() }
    #expect(await GPSFake.waitUntilListening(port: port), "geo simulate listens on \(port)")
    guard let result = try await GPSFake.withDaemon(device: "tcp://127.0.0.1:\(port)", { gpsd in
        try await GeoProcess.geo(["track", "--source", "gpsd://127.0.0.1:\(gpsd.port)", "--preset", "raw", "--count", "5", "--for", "30"])
    }) else { return }
    simulator.terminate()
    _ = try await simulator.exitStatus(timeout: .seconds(10))
    #expect(result.status == 0, "\(result.stderr)")
    let updates = try events(result.stdout).filter { $0["event"] as? String == "update" }
    #expect(updates.count == 5)
    // The default simulation drives at 13.9 m/s; NMEA carries speed in knots to 3 decimals.
    #expect(updates.allSatisfy { abs(($0["speed"] as? Double ?? 0) - 13.9) < 0.01 }, "\(updates)")
    // Inside the sample city, around 48.0 N 11.0 E.
    #expect(updates.allSatisfy { abs(($0["lat"] as? Double ?? 0) - 48) < 0.05 && abs(($0["lon"] as? Double ?? 0) - 11) < 0.05 })
}
