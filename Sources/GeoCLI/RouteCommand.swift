import ArgumentParser
import Foundation
import GeoCore
import RoadNetwork
import Routing
import SystemIO
import GeoBase
import GPXCodec

/// `geo route`: routes on a graph file written by `geo extract` (OSRM `osrm-routed`, in process).
struct RouteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "route",
        abstract: "Route between two points, or many pairs read from standard input (--batch).",
        discussion: """
            Batch mode reads lines 'lat1 lon1 lat2 lon2' (degrees, blanks between) and writes \
            'distance_m duration_s' for each, or 'nan nan' when there is no route. Blank lines \
            and lines starting with '#' are skipped. A bad line gets no output line: it is \
            reported on standard error with its line number, the other lines are answered, and \
            the exit status is 1.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case json, geojson, gpx }
    enum Metric: String, ExpressibleByArgument, CaseIterable { case fastest, shortest }

    @Option(help: "A graph file written by 'geo extract'.")
    var graph: String

    // .unconditional: southern and western points (--to -10,-50) are values, not options.
    @Option(parsing: .unconditional, help: "Start as LAT,LON in degrees (latitude -90…90, longitude any, wrapped).")
    var from: String?

    @Option(parsing: .unconditional, help: "End as LAT,LON in degrees (latitude -90…90, longitude any, wrapped).")
    var to: String?

    @Option(help: "Output format: json, geojson or gpx.")
    var format: Format = .json

    @Option(help: "What to minimise: fastest (travel time with turn costs) or shortest (length).")
    var metric: Metric = .fastest

    @Flag(help: "Read 'lat1 lon1 lat2 lon2' lines from standard input.")
    var batch = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Pieces of road with fewer directed edges are small (0 or more): an end snapped onto one moves to the nearest larger piece, unless both ends share it (OSRM's --small-component-size).", valueName: "edges"))
    var smallComponentSize = 1000

    func validate() throws {
        guard smallComponentSize >= 0 else { throw ValidationError("--small-component-size must be 0 or more, got \(smallComponentSize)") }
        if batch {
            guard from == nil, to == nil else { throw ValidationError("--batch reads pairs from standard input; drop --from/--to") }
        } else {
            guard let from, let to else { throw ValidationError("give --from and --to (or --batch)") }
            do {
                _ = try Coordinate(parsing: from)
            } catch {
                throw ValidationError("--from: \(error.message)")
            }
            do {
                _ = try Coordinate(parsing: to)
            } catch {
                throw ValidationError("--to: \(error.message)")
            }
        }
    }

    func run() throws {
        let router = Router(graph: try CommandLineFiles.graph(graph, command: "route"), smallComponentSize: smallComponentSize)
        let options = RouteOptions(metric: metric == .fastest ? .fastest : .shortest)
        if batch {
            try runBatch(router: router, options: options)
            return
        }
        guard let from, let to else { throw ValidationError("give --from and --to (or --batch)") }
        let route = try router.route(from: try Coordinate(parsing: from), to: try Coordinate(parsing: to), options: options)
        switch format {
        case .json: standardOutput.line(Self.json(route))
        case .geojson: standardOutput.line(Self.geojson(route))
        case .gpx: standardOutput.write(try Self.gpx(route))
        }
    }

    /// Answers each 'lat1 lon1 lat2 lon2' line of standard input; a bad line is reported on
    /// standard error with its line number and gets no output line, the others are answered.
    /// - Throws: `ExitCode.failure` at the end when any line was bad.
    private func runBatch(router: Router, options: RouteOptions) throws {
        var scratch = RouteScratch()
        var out = ""
        var lineNumber = 0, badLines = 0
        while let line = readLine() {
            lineNumber += 1
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," })
            if fields.isEmpty || line.hasPrefix("#") { continue }
            guard fields.count == 4, let lat1 = Double(fields[0]), let lon1 = Double(fields[1]),
                  let lat2 = Double(fields[2]), let lon2 = Double(fields[3]),
                  let a = try? Coordinate(latitude: lat1, longitude: lon1),
                  let b = try? Coordinate(latitude: lat2, longitude: lon2)
            else {
                badLines += 1
                try? FileDescriptor.standardError.writeAll("geo route: line \(lineNumber): expected 'lat1 lon1 lat2 lon2' in degrees, got '\(line.prefix(80))'\n")
                continue
            }
            if let route = try? router.route(from: a, to: b, options: options, scratch: &scratch) {
                out += String(format: "%.3f %.3f\n", route.distance.meters, route.duration.seconds)
            } else {
                out += "nan nan\n"
            }
            if out.utf8.count > 1 << 16 {
                standardOutput.write(out)
                out = ""
            }
        }
        standardOutput.write(out)
        if badLines > 0 {
            try? FileDescriptor.standardError.writeAll("geo route: \(badLines) of \(lineNumber) lines were bad and got no answer\n")
            throw ExitCode.failure
        }
    }

    /// The route's geometry rounded to 1e-7° (the graph's fixed-point precision), so positions
    /// print as short decimals.
    private static func geometry(_ route: Route) -> [Coordinate] {
        func e7(_ degrees: Double) -> Double { (degrees * 1e7).rounded() / 1e7 }
        return route.geometry.map { Coordinate(uncheckedLatitude: e7($0.latitude), longitude: e7($0.longitude)) }
    }

    private static func lineString(_ route: Route) -> GeoJSONGeometry { .lineString(geometry(route)) }

    /// A number rounded to millimetres or milliseconds for printing.
    private static func milli(_ x: Double) -> JSONValue { .number((x * 1000).rounded() / 1000) }

    private static func text(_ geoJSON: GeoJSON) -> String { String(decoding: geoJSON.encoded(), as: UTF8.self) }

    static func json(_ route: Route) -> String {
        String(format: "{\"distance_m\":%.3f,\"duration_s\":%.3f,\"weight\":%.3f,\"edges\":%d,", route.distance.meters,
               route.duration.seconds, route.weight, route.edges.count)
            + "\"geometry\":\(text(.geometry(lineString(route))))}"
    }

    static func geojson(_ route: Route) -> String {
        text(.feature(GeoJSONFeature(geometry: lineString(route),
                                     properties: ["distance_m": milli(route.distance.meters), "duration_s": milli(route.duration.seconds)])))
    }

    /// The route as a GPX 1.1 `<rte>` (GPXCodec's writer), its distance and duration in `<desc>`.
    static func gpx(_ route: Route) throws -> String {
        var writer = try GPXStreamWriter(sink: MemorySink(), header: GPXHeader(creator: "LocationKit geo"))
        var info = GPXPathInfo()
        info.description = String(format: "distance_m=%.3f duration_s=%.3f", route.distance.meters, route.duration.seconds)
        try writer.beginRoute(info)
        for c in geometry(route) { try writer.write(routePoint: GPXPoint(coordinate: c)) }
        try writer.endRoute()
        return String(decoding: try writer.finish().bytes, as: UTF8.self)
    }
}
