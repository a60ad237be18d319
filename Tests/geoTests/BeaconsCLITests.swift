import Foundation
import Testing
import GeoTestSupport

/// Three seconds of a recorded scan: an iBeacon at −59 dBm (1 m at its measured power −59) ten
/// times a second, an Eddystone-UID beacon with its URL and TLM frames, and a phone's ordinary
/// advertisement.
private func replay() -> String {
    var lines: [String] = []
    for k in 0..<30 {
        let t = String(format: "2026-07-14T06:00:%02d.%dZ", k / 10, k % 10)
        lines.append(#"{"time":"\#(t)","address":"C4:7C:8D:6A:3E:01","rssi":-59,"data":"0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5"}"#)
        if k % 10 == 5 {
            lines.append(#"{"time":"\#(t)","address":"DD:00:00:00:00:01","rssi":-70,"data":"0303aafe1716aafe00ee8b0ca750095477cb3e770000000000010000"}"#)
            lines.append(#"{"time":"\#(t)","address":"DD:00:00:00:00:01","rssi":-70,"data":"0303aafe1316aafe101203676f6f2e676c2f53367a543650"}"#)
            lines.append(#"{"time":"\#(t)","address":"DD:00:00:00:00:01","rssi":-70,"data":"1116aafe20000bb81880000003e800002710"}"#)
            lines.append(#"{"time":"\#(t)","address":"6A:11:22:33:44:55","rssi":-80,"data":"0201060409414243"}"#)
        }
    }
    return lines.joined(separator: "\n") + "\n"
}

@Test func beacons_replay_printsOneReportPerSecond_nearestFirst() async throws {
    try await withTemporaryDirectory { dir in
        let file = dir.appendingPathComponent("scan.jsonl")
        try replay().write(to: file, atomically: true, encoding: .utf8)
        let result = try await GeoProcess.geo(["beacons", "--source", "replay:\(file.path)"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        // Reports at 06:00:01, :02, then every second after the last advertisement (2.9 s) until
        // the first empty one, "beacons": [], at :33 (the 30 s expiry + 1 interval).
        try #require(lines.count == 33, "reports at 06:00:01 … :33: \(result.stdout)")
        let end = try #require(try JSONSerialization.jsonObject(with: Data(lines[32].utf8)) as? [String: Any])
        #expect(end["time"] as? String == "2026-07-14T06:00:33Z" && (end["beacons"] as? [Any])?.isEmpty == true)
        let before = try #require(try JSONSerialization.jsonObject(with: Data(lines[31].utf8)) as? [String: Any])
        #expect((before["beacons"] as? [Any])?.count == 2, "listed (as unknown) until their expiry")
        let last = try #require(try JSONSerialization.jsonObject(with: Data(lines[2].utf8)) as? [String: Any])
        #expect(last["time"] as? String == "2026-07-14T06:00:03Z")
        let beacons = try #require(last["beacons"] as? [[String: Any]])
        try #require(beacons.count == 2)
        #expect(beacons[0]["uuid"] as? String == "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0" && beacons[0]["minor"] as? Int == 2)
        #expect(abs((beacons[0]["distance"] as? Double ?? 0) - 1) < 0.01 && beacons[0]["proximity"] as? String == "near")
        #expect(beacons[1]["namespace"] as? String == "8b0ca750095477cb3e77" && beacons[1]["url"] as? String == "https://goo.gl/S6zT6P")
        let telemetry = try #require(beacons[1]["telemetry"] as? [String: Any])
        #expect(telemetry["batteryMillivolts"] as? Int == 3000 && telemetry["temperature"] as? Double == 24.5)
    }
}

@Test func beacons_badSourceOrFile_failsWithTheReason() async throws {
    try await withTemporaryDirectory { dir in
        let bad = dir.appendingPathComponent("bad.jsonl")
        try "{\"time\":\"2026-07-14T06:00:00Z\",\"address\":\"A\",\"rssi\":-1,\"data\":\"1aff4c00\"}\n".write(to: bad, atomically: true, encoding: .utf8)
        // No system bus at this address: the live scanner cannot start (exit 69, EX_UNAVAILABLE).
        let noBus = ProcessInfo.processInfo.environment.merging(["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(dir.path)/no-bus"]) { $1 }
        for (arguments, reason) in [(["--source", "bluez:hci0"], "geo beacons: hci0: Bluetooth unavailable: cannot reach the system bus"),
                                    (["--source", "replay:\(bad.path)", "--for", "3"], "--for applies to a live bluez: source"),
                                    (["--source", "x.jsonl"], "replay:FILE"),
                                    (["--source", "replay:/nonexistent.jsonl"], "nonexistent"), (["--source", "replay:\(bad.path)"], "line 1"),
                                    (["--source", "replay:\(bad.path)", "--interval", "0"], "--interval")] {
            let result = try await GeoProcess.geo(["beacons"] + arguments, environment: noBus)
            #expect(result.status != 0 && result.stdout.isEmpty, "\(arguments)")
            if arguments[1].hasPrefix("bluez:") { #expect(result.status == 69) }
            #expect(result.stderr.contains(reason), "\(arguments): \(result.stderr)")
        }
    }
}

@Test(.onOwnThread) func beacons_bluez_rangesLive_andSaysWhenTheAdapterGoesAway() async throws {
    try await BlueZMock.run { bluez in
        try await bluez.control("add-adapter", "hci0")
        let device = try await bluez.control("add-device", "hci0", "C4:7C:8D:6A:3E:01")
        let environment = ProcessInfo.processInfo.environment.merging(["DBUS_SYSTEM_BUS_ADDRESS": bluez.address]) { $1 }
        // geo finds the bus through DBUS_SYSTEM_BUS_ADDRESS, as on a real system.
        async let scan = GeoProcess.geo(["beacons", "--source", "bluez:hci0", "--for", "30", "--interval", "0.5"], environment: environment)
        #expect(try await bluez.until { try await bluez.control("discovering", "hci0") == "true" })
        for _ in 0..<4 { // iBeacon, AirLocate UUID, major 1, minor 2, −59 dBm at 1 m
            try await bluez.control("advertise", device, "-59", "m", "0x004c", "0215E2C56DB5DFFB48D2B060D0F5A71096E000010002C5")
            try await Task.sleep(for: .milliseconds(300))
        }
        try await bluez.control("remove-adapter", "hci0")
        let result = try await scan
        #expect(result.status == 69, "EX_UNAVAILABLE: \(result.stderr)")
        #expect(result.stderr.contains("geo beacons: hci0: Bluetooth lost: the adapter /org/bluez/hci0 was removed"), "\(result.stderr)")
        let reports = result.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let heard = reports.compactMap { ($0["beacons"] as? [[String: Any]])?.first }
        #expect(heard.contains { $0["uuid"] as? String == "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0" && $0["major"] as? Int == 1 && $0["minor"] as? Int == 2 },
                "\(result.stdout)")
        #expect(heard.allSatisfy { abs(($0["distance"] as? Double ?? 0) - 1) < 0.01 }, "RSSI −59 at −59 dBm @ 1 m is 1 m: \(result.stdout)") // metres
    }
}
