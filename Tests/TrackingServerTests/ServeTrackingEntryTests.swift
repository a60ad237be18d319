import Foundation
import GeoTestSupport
import Testing
import TrackingProtocols
@testable import TrackingServer
import HTTPServing

// The parsers geo serve-tracking and geo loadgen call (a device spec, a base URL), and the
// server geo serve-tracking runs from its configuration.
@Test func deviceSpec_knotsSuffixSetsTheOsmAndSpeedUnit_elseTheWholeSpecIsTheName() {
    #expect(DeviceSettings(spec: "truck-7:knots") == DeviceSettings(name: "truck-7", osmAndSpeedUnit: .knots))
    #expect(DeviceSettings(spec: "phone") == DeviceSettings(name: "phone", osmAndSpeedUnit: .metersPerSecond))
    #expect(DeviceSettings(spec: "a:b") == DeviceSettings(name: "a:b"))
}

@Test func loadgenURL_hostAndPortOfHTTPBaseURLs_nilForOthers() {
    #expect(LoadGenerator.Options.hostAndPort(of: "http://127.0.0.1:5055/").map { [$0.host, "\($0.port)"] } == ["127.0.0.1", "5055"])
    #expect(LoadGenerator.Options.hostAndPort(of: "http://[::1]:8080/").map { [$0.host, "\($0.port)"] } == ["::1", "8080"])
    #expect(LoadGenerator.Options.hostAndPort(of: "http://tracker.example:80").map { [$0.host, "\($0.port)"] } == ["tracker.example", "80"])
    for bad in ["ftp://x:1/", "http://x/", "http://x:port/", "https://x:443/"] {
        #expect(LoadGenerator.Options.hostAndPort(of: bad) == nil, "\(bad)")
    }
}

/// `geo serve-tracking`'s whole server from one configuration value: the SQLite store opened
/// at its path, its devices registered with their settings (10 knots stored as 5.144444 m/s),
/// an unknown device refused (403) under `.refuse`, and what was acknowledged committed once
/// the server is stopped.
@Test(.onOwnThread, .timeLimit(.minutes(1))) func configuration_opensItsStore_registersItsDevices_andServes() async throws {
    try await withTemporaryDirectory { dir in
        let db = dir.appendingPathComponent("t.sqlite").path
        var configuration = TrackingServerConfiguration(postgresURLs: [], sqlitePath: db, policy: .refuse)
        configuration.devices = [DeviceSettings(spec: "car:knots")]
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let server = Task {
            try await TrackingRoutes.run(configuration, on: LocalServer.Options(port: 0, hosts: ["127.0.0.1"]), serving: { url in
                continuation.yield(Int(url.split(separator: ":").last!.dropLast())!)
            }, note: { _ in })
        }
        var bound = ports.makeAsyncIterator()
        let port = try #require(await bound.next())
        let t = TrackingServerTests.nowSeconds - 10
        #expect(try await TrackingServerTests.http(port, "GET", "/?id=van&lat=1&lon=2&timestamp=\(t)").status == 403)
        #expect(try await TrackingServerTests.http(port, "GET", "/?id=car&lat=1&lon=2&timestamp=\(t)&speed=10").status == 200)
        server.cancel()
        try await server.value
        let store = try SQLitePositionStore(path: db, readOnly: true)
        #expect(try await store.devices().map(\.name) == ["car"])
        let speed = try #require(try await store.latest(device: "car")?.speed)
        #expect(abs(speed - 5.144444) < 1e-6) // 10 kn × 1852 m / 3600 s
    }
}
