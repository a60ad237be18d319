import ArgumentParser
import Platform
import GeoCore
import OSMImport
import Positioning
import Routing
import SystemIO
import TrackFiltering

/// `geo simulate`: drives a route simulation and emits it as NMEA, to standard output or to TCP
/// clients, so gpsd or any NMEA consumer can use simulated positions.
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Simulate movement along a route and emit it as NMEA 0183 (GGA, GSA, RMC, VTG).",
        discussion: """
            Without --route the route is a car route across the embedded sample city. With \
            --nmea-tcp PORT the sentences are served to every client of 127.0.0.1:PORT (for \
            example gpsd -N tcp://127.0.0.1:PORT, or geo track --source nmea+tcp://127.0.0.1:PORT); \
            otherwise they are written to standard output.
            """
    )

    @Option(help: "A GeoJSON LineString (or a Feature holding one) to follow.")
    var route: String?

    // Numbers parse unconditionally, so a negative one reaches validate() and its range.
    @Option(parsing: .unconditional, help: "Movement speed (\(Limits.movementSpeed)).")
    var speed: Double = 13.9

    @Option(parsing: .unconditional, help: "Seconds between fixes (\(Limits.updateInterval)).")
    var interval: Double = 1

    @Option(parsing: .unconditional, help: "One-sigma position noise per axis (\(Limits.noise); Gauss–Markov, 30 s).")
    var noise: Double?

    @Option(parsing: .unconditional, help: "Serve the sentences to TCP clients on 127.0.0.1 at this port (\(Limits.port)).")
    var nmeaTcp: Int?

    @Option(parsing: .unconditional, help: "Stop after this many fixes (\(OptionRanges.count)).")
    var count: Int?

    @Flag(help: "Emit as fast as possible instead of one fix per interval.")
    var fast = false

    private typealias Limits = PositionSourceURI.Limits

    func validate() throws {
        try Limits.movementSpeed.check(speed, option: "--speed")
        try Limits.updateInterval.check(interval, option: "--interval")
        try Limits.noise.check(noise, option: "--noise")
        try Limits.port.check(nmeaTcp, option: "--nmea-tcp")
        try OptionRanges.count.check(count, option: "--count")
    }

    func run() async throws {
        let polyline = try route.map { route in
            let geoJSON = try CommandLineFiles.reading(route, damage: { $0 is GeoCoreError }) { try GeoJSON(data: Data(FileDescriptor.readContents(of: route))) }
            guard let line = geoJSON.firstLineString else { throw ValidationError("\(route) holds no LineString") }
            return line
        } ?? SampleCityRoute.make().route.geometry
        let source = try RouteSimulationSource(
            polyline: polyline, movementSpeed: .metersPerSecond(speed), updateInterval: .seconds(interval), // validated: cannot trap
            noise: noise.map { RouteSimulationSource.Noise(sigma: .meters($0)) }, pacing: fast ? .asFastAsPossible : .realTime,
            startDate: Date())
        let server: TCPBroadcastServer?
        do { server = try nmeaTcp.map { try TCPBroadcastServer(port: $0) } } catch { throw ValidationError("\(error)") }
        defer { server?.close() }
        try await source.emitNMEA(count: count) { sentences in
            if let server { server.broadcast(sentences) } else { standardOutput.write(sentences); standardOutput.flush() }
        }
    }
}
