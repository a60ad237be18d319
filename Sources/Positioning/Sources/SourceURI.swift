public import Foundation
public import GeoCore
import GPXCodec
import NMEACodec
import SystemIO
import TrackFiltering
import GeoBase

/// Position sources named by URI, for configuration files and the `geo track` command.
///
/// | URI | source |
/// |---|---|
/// | `gpsd://127.0.0.1:2947` | `GPSDSource` (host and port optional) |
/// | `nmea:///dev/ttyUSB0?baud=9600` | `NMEASource`, serial device (default 9600 baud) |
/// | `nmea+tcp://host:port` | `NMEASource`, TCP |
/// | `nmea:file.nmea`, `nmea:-` | `NMEASource`, a file or standard input (`speed=` paces a replay) |
/// | `gpx:track.gpx?speed=10&accuracy=10` | `LocationReplaySource` over the file's track points (`speed=max` as fast as possible, default real time; `accuracy` m for points with neither accuracy nor HDOP, default 10: `GPXAccuracyPolicy`); a truncated or malformed file is an error with its line and column, unless `recover` is given, which replays the points before the damage |
/// | `route:line.geojson?speed=13.9&interval=1&noise=3` | `RouteSimulationSource` (m/s, s, σ m) |
/// | `device:` | the default device source (`DeviceSource`) |
///
/// Every number has a valid range (`Limits`); a value outside is an error naming the key and the range.
public enum PositionSourceURI {
    /// The valid ranges of the numbers a source URI (and `geo simulate`, which drives the same
    /// simulation) takes; a value outside is an `invalidConfiguration` error naming the key.
    public enum Limits {
        /// `route:` `speed`, the simulated movement speed: above 0 through 10 km/s (faster than
        /// anything that moves along roads, or flies).
        public static let movementSpeed = ValidRange(above: 0, through: 10_000, unit: "m/s")
        /// `route:` `interval`, seconds between simulated fixes: 1 ms through one day.
        public static let updateInterval = ValidRange(0.001...86_400, unit: "s")
        /// `route:` `noise`, the one-sigma position noise per axis.
        public static let noise = ValidRange(0...1_000, unit: "m")
        /// `gpx:` and `nmea:` `speed`, the replay speed factor: a thousandth of real time to a
        /// million times faster (the longest wait between two fixes stays a finite `Duration`).
        public static let speedFactor = ValidRange(0.001...1_000_000, unit: "× real time")
        /// `gpx:` `accuracy`, assumed for points with neither accuracy nor HDOP (GPXCodec's range).
        public static let assumedAccuracy = GPXAccuracyPolicy.assumedAccuracies
        /// `nmea:///dev/…` `baud`, a whole number of symbols per second.
        public static let baud = ValidRange(1...4_000_000, unit: "baud")
        /// `gpsd://` and `nmea+tcp://` ports, and the port `geo simulate --nmea-tcp` serves on:
        /// a TCP port other than 0.
        public static let port = ValidRange(1...65_535, unit: "")
    }

    /// Makes the source a URI names.
    /// - Parameters:
    ///   - clock: paces replays and simulations and times gpsd reconnects.
    ///   - startDate: the first timestamp of a route simulation.
    ///   - reconnect: how the network sources (gpsd, NMEA over TCP) connect and retry.
    ///   - onConnectionChange: hears a network source's first failure of each run of failures
    ///     and the reconnection that ends it.
    /// - Throws: `PositioningError.invalidConfiguration` for a malformed URI or parameter; what
    ///   reading a GPX or GeoJSON file throws.
    public static func source(_ uri: String, clock: SourceClock = .continuous, startDate: Date,
                              reconnect: ReconnectPolicy = ReconnectPolicy(),
                              onConnectionChange: @escaping @Sendable (ConnectionChange) -> Void = { _ in }) throws(PositioningError) -> any PositionSource {
        guard let colon = uri.firstIndex(of: ":") else {
            throw PositioningError(.invalidConfiguration, "'\(uri)' has no scheme; expected gpsd://, nmea:, nmea+tcp://, gpx:, route: or device:")
        }
        let scheme = uri[..<colon].lowercased()
        var rest = String(uri[uri.index(after: colon)...])
        var query: [String: String] = [:]
        if let q = rest.firstIndex(of: "?") {
            for pair in rest[rest.index(after: q)...].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1)
                query[String(kv[0])] = kv.count > 1 ? String(kv[1]) : ""
            }
            rest = String(rest[..<q])
        }
        func number(_ key: String, in range: ValidRange, default value: Double) throws(PositioningError) -> Double {
            guard let text = query[key] else { return value }
            guard let v = Double(text), range.contains(v) else {
                throw PositioningError(.invalidConfiguration, "'\(key)=\(text)' in '\(uri)': \(key) must be \(range)")
            }
            return v
        }
        func pacing(default value: ReplayPacing?) throws(PositioningError) -> ReplayPacing? {
            guard let text = query["speed"] else { return value }
            return text == "max" ? .asFastAsPossible : .speedFactor(try number("speed", in: Limits.speedFactor, default: 1))
        }
        func hostPort(_ authority: String, defaultPort: Int?) throws(PositioningError) -> (String, Int) {
            let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
            let host = parts.first.map(String.init).flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
            guard parts.count <= 2, let port = parts.count == 2 ? Int(parts[1]) : defaultPort, Limits.port.contains(port) else {
                throw PositioningError(.invalidConfiguration, "'\(uri)' needs host:port with a port in \(Limits.port)")
            }
            return (host, port)
        }
        switch scheme {
        case "gpsd":
            let (host, port) = try hostPort(String(rest.trimmingPrefix("//")), defaultPort: 2947)
            return GPSDSource(host: host, port: port, reconnect: reconnect, clock: clock, onConnectionChange: onConnectionChange)
        case "nmea+tcp":
            let (host, port) = try hostPort(String(rest.trimmingPrefix("//")), defaultPort: nil)
            return NMEASource(.tcp(host: host, port: port), options: try nmeaOptions(), reconnect: reconnect, clock: clock,
                              onConnectionChange: onConnectionChange)
        case "nmea":
            if rest.hasPrefix("//") {
                let path = String(rest.dropFirst(2))
                guard path.hasPrefix("/") else {
                    throw PositioningError(.invalidConfiguration, "'\(uri)': a device is nmea:///dev/NAME (three slashes)")
                }
                let baud = try number("baud", in: Limits.baud, default: 9600)
                guard let whole = Int(exactly: baud) else {
                    throw PositioningError(.invalidConfiguration, "'baud=\(baud)' in '\(uri)' is not a whole number")
                }
                return NMEASource(.serial(path: path, baud: whole), options: try nmeaOptions(), clock: clock)
            }
            guard !rest.isEmpty else { throw PositioningError(.invalidConfiguration, "'\(uri)' names no file") }
            return NMEASource(rest == "-" ? .standardInput : .file(rest), options: try nmeaOptions(), pacing: try pacing(default: nil), clock: clock)
        case "gpx" where rest.isEmpty, "route" where rest.isEmpty:
            // Else the empty path would read the working directory.
            throw PositioningError(.invalidConfiguration, "'\(uri)' names no file")
        case "gpx":
            // Plain GPX has no accuracy field (our logs carry lk:acc): HDOP stands in, else an
            // assumed accuracy, so the accuracy rules of the track filter have something to judge.
            let accuracy = GPXAccuracyPolicy(assumed: .meters(try number("accuracy", in: Limits.assumedAccuracy, default: 10)))
            let read: (locations: [Location], segments: Int, damage: GPXError?)
            do { read = try PositionLog.read(url: URL(fileURLWithPath: rest), accuracy: accuracy) } catch {
                throw error as? PositioningError ?? PositioningError(.io, "cannot read \(rest)", underlying: error)
            }
            // A damaged file is an error naming where; `recover` replays the points before the damage.
            if let damage = read.damage, read.locations.isEmpty || query["recover"] == nil {
                let keep = read.locations.isEmpty ? "no track point precedes the damage" : "gpx:\(rest)?recover replays the \(read.locations.count) points before it"
                throw PositioningError(.io, "\(rest) is damaged (\(keep))", underlying: damage)
            }
            return try LocationReplaySource(locations: read.locations, pacing: try pacing(default: .realTime) ?? .realTime,
                                       clock: clock, name: uri)
        case "route":
            let bytes: [UInt8]
            do { bytes = try FileDescriptor.readContents(of: rest) } catch {
                throw PositioningError(.io, "cannot read \(rest)", underlying: error)
            }
            let geoJSON: GeoJSON
            do { geoJSON = try GeoJSON(data: Data(bytes)) } catch {
                throw PositioningError(.invalidConfiguration, "\(rest): \(error.message)", underlying: error)
            }
            let sigma = query["noise"] == nil ? nil : try number("noise", in: Limits.noise, default: 3)
            let speed = try number("speed", in: Limits.movementSpeed, default: 13.9)
            let interval = try number("interval", in: Limits.updateInterval, default: 1)
            return try RouteSimulationSource(geoJSON: geoJSON, movementSpeed: .metersPerSecond(speed),
                                             updateInterval: .seconds(interval), // inside Limits.updateInterval: cannot trap
                                             noise: sigma.map { RouteSimulationSource.Noise(sigma: .meters($0)) },
                                             pacing: query["pacing"] == "max" ? .asFastAsPossible : .realTime,
                                             startDate: startDate, clock: clock)
        case "device":
            return try DeviceSource.resolve()
        default:
            throw PositioningError(.invalidConfiguration, "unknown source scheme '\(scheme)' in '\(uri)'")
        }
    }

    /// Decoder options for the NMEA sources made from URIs and device settings: PROJ's EGM96 grid, where PROJ's
    /// data is installed, fills `altitudeHAE` for receivers that send no geoid separation.
    /// - Throws: `PositioningError.io` when the grid file is there but unreadable or invalid.
    static func nmeaOptions() throws(PositioningError) -> NMEADecoder.Options {
        do {
            return NMEADecoder.Options(geoid: try GeoidGridFiles.projEGM96())
        } catch {
            throw PositioningError(.io, "cannot read PROJ's EGM96 geoid grid", underlying: error)
        }
    }
}

/// The default device source on Linux: gpsd if it answers, else an NMEA device named in the
/// environment, else a clear error.
///
/// Configuration (environment): `LOCATIONKIT_GPSD=host:port` (default `127.0.0.1:2947`) and
/// `LOCATIONKIT_NMEA_DEVICE=/dev/ttyUSB0` with optional `LOCATIONKIT_NMEA_BAUD` (default 9600).
public enum DeviceSource {
    /// Resolves the default source now.
    /// - Throws: `PositioningError.sourceUnavailable` naming both places it looked.
    public static func resolve(environment: [String: String] = ProcessInfo.processInfo.environment) throws(PositioningError) -> any PositionSource {
        let gpsd = environment["LOCATIONKIT_GPSD"] ?? "127.0.0.1:2947"
        let parts = gpsd.split(separator: ":")
        let host = parts.first.map(String.init) ?? "127.0.0.1"
        let port = parts.count > 1 ? Int(parts[1]) ?? 2947 : 2947
        if GPSDSource.isReachable(host: host, port: port) { return GPSDSource(host: host, port: port) }
        if let device = environment["LOCATIONKIT_NMEA_DEVICE"], !device.isEmpty {
            let baud = environment["LOCATIONKIT_NMEA_BAUD"].flatMap(Int.init) ?? 9600
            return NMEASource(.serial(path: device, baud: baud), options: try PositionSourceURI.nmeaOptions())
        }
        throw PositioningError(.sourceUnavailable,
                               "no position source: no gpsd answers on \(host):\(port) (LOCATIONKIT_GPSD) and no NMEA device is configured (LOCATIONKIT_NMEA_DEVICE)")
    }
}

/// The default device source looked up when a run starts, not when it is made (the source of
/// `LocationUpdate.liveUpdates()` without one, as Core Location's `liveUpdates()` reads the
/// device): each run resolves `DeviceSource` again and reads what it found; with nothing to
/// be had the run fails with `PositioningError.sourceUnavailable`.
struct DeviceSourceOnDemand: PositionSource {
    /// The environment `DeviceSource.resolve` reads (`LOCATIONKIT_GPSD`, `LOCATIONKIT_NMEA_DEVICE`).
    let environment: [String: String]
    private let runs = RunCounter()

    var name: String { "device" }

    func events() -> AsyncThrowingStream<PositionSourceEvent, any Error> {
        runs.stream { [environment] output in
            let source = try DeviceSource.resolve(environment: environment)
            for try await event in source.events() { output.yield(event) }
        }
    }
}
