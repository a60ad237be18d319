import Foundation
import HTTPServing
import SystemIO
import Testing
import TrackingProtocols
import TrackingServer

// The entry points geo serve-tracking and geo loadgen call: the server with its Teltonika
// listener, a device spec, a base URL.

@Test func trackingServer_withTeltonika_listensOnBothPorts_andEndsWithTheRoutes() async throws {
    let dir = try TrackingServerTests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let ingest = try await TrackingIngest(store: try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path), policy: .register)
    let (said, continuation) = AsyncStream.makeStream(of: String.self)
    let server = Task {
        try await TrackingRoutes.run(LocalServer.Options(port: 0, hosts: ["127.0.0.1"]), ingest: ingest, teltonikaPort: 0, retentionDays: 30,
                                     serving: { continuation.yield("serving " + $0) }, note: { continuation.yield($0) })
    }
    var url: String?, teltonika: Int?
    for await line in said {
        if line.hasPrefix("serving ") { url = String(line.dropFirst(8)) }
        if line.hasPrefix("Teltonika on 127.0.0.1 port ") { teltonika = Int(line.split(separator: " ").last ?? "") }
        if url != nil, teltonika != nil { break }
    }
    // The routes answer HTTP, the listener takes a TCP connection on a port of its own.
    let port = try #require(url.flatMap { Int($0.split(separator: ":").last?.dropLast() ?? "") })
    #expect(try await TrackingServerTests.http(port, "GET", "/metrics").status == 200)
    let listener = try #require(teltonika)
    #expect(listener > 0 && listener != port)
    // A device's IMEI login is accepted (unknown devices register) before the server stops.
    let device = try TCPClient.connect(host: "127.0.0.1", port: listener)
    try device.writeAll(TeltonikaListenerTests.bytes("000F333536333037303432343431303133"))
    #expect(try TeltonikaListenerTests.read(device, 1) == [1])
    try device.close()
    // Cancelled, the routes end and take the listener and the retention with them: the task
    // returns.
    server.cancel()
    _ = await server.result
}

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
