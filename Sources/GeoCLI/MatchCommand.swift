import ArgumentParser
import Foundation
import GeoBase
import GeoCore
import GPXCodec
import MapMatching
import NMEACodec
import RoadNetwork
import SystemIO

/// `geo match`: map-matches a recorded track on a graph file written by `geo extract`
/// (OSRM's `/match` service, in process), or replays it through the online matcher.
struct MatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "match",
        abstract: "Match a recorded track (GPX, GeoJSON, CSV or NMEA) to the roads of a graph.",
        discussion: """
            json: OSRM /match's shape: 'matchings' (confidence, distance m, duration s, geometry, \
            and 'nodes', the OSM node ids along the path) and 'tracepoints' (null when unmatched, \
            else location [lon, lat], distance m from the fix, matchings_index, and 'nodes', the \
            two OSM node ids of the segment it lies on). geojson: a LineString feature per \
            matching. gpx: a track with a segment per matching. --online prints one JSON line per \
            fix with what the live matcher published at that fix: matched {latitude, longitude} \
            or null, nodes, confidence, offRoadProbability, revised. Both have one entry per \
            fix of the track, in its order: a GPX point whose lat or lon is missing, not a \
            number or out of range is not matched, gets a null tracepoint (online: matched, \
            nodes, confidence and offRoadProbability null) and a warning with its line on \
            standard error. \
            CSV needs a header naming lat/latitude and lon/lng/longitude columns, optionally \
            time (ISO 8601 or Unix seconds) and accuracy (68 % radius, m). GeoJSON: LineStrings \
            and Points, times from a 'coordTimes' or 'times' property when present (one time \
            per position, in the years 0001 to 9999, else the file is refused). Fixes without \
            times are matched by distance alone; fixes with times going backwards start a new \
            matching.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case json, geojson, gpx }
    enum Mode: String, ExpressibleByArgument, CaseIterable { case car, pedestrian }

    @Option(help: "A graph file written by 'geo extract' (--profile car for car, foot for pedestrian).")
    var graph: String

    @Argument(help: "The track: .gpx, .geojson/.json, .csv, or NMEA (.nmea, .log, anything else).")
    var track: String

    @Option(help: "car (car graph) or pedestrian (foot graph).")
    var mode: Mode = .car

    @Option(help: "Output format: json, geojson or gpx.")
    var format: Format = .json

    @Flag(help: "Print what the online matcher publishes, one JSON line per fix.")
    var online = false

    @Option(name: .shortAndLong, help: "Output file (default: standard output), replaced atomically.")
    var output: String?

    @Flag(help: "Report on standard error how long the matching alone took (no graph load, parsing or output).")
    var timing = false

    @Option(parsing: .unconditional, help: ArgumentHelp("68 % accuracy assumed for fixes that report none, metres (default: the mode's).", valueName: "m"))
    var accuracy: Double?

    func validate() throws {
        try OptionRanges.matchAccuracy.check(accuracy, option: "--accuracy")
    }

    func run() throws {
        let clock = ContinuousClock()
        var mark = clock.now
        var phases: [(String, Duration)] = []
        func lap(_ name: String) {
            let now = clock.now
            phases.append((name, now - mark))
            mark = now
        }
        let roads = try RouteCommand.loadGraph(path: graph, command: "match")
        let wanted = mode == .car ? "car" : "foot"
        guard roads.profileName == wanted else {
            throw ValidationError("\(graph): a \(roads.profileName) graph; --mode \(mode.rawValue) needs one extracted with --profile \(wanted)")
        }
        lap("graph load")
        var parameters: MatchingParameters = mode == .car ? .car : .pedestrian
        if let accuracy { parameters.defaultAccuracy = .meters(accuracy) }
        let matcher = try MapMatcher(graph: roads, mode: mode == .car ? .car : .pedestrian, parameters: parameters)
        lap("index")
        let entries = try TrackReader.read(track)
        let fixes = entries.compactMap(\.self)
        guard !fixes.isEmpty else { throw TrackCommandError("geo match: \(track): no track points with a position") }
        lap("track read")
        if online {
            try runOnline(matcher, entries)
            return
        }
        let result = matcher.match(fixes)
        lap("matching")
        let text: String
        switch format {
        case .json: text = Self.json(result, entries: entries)
        case .geojson: text = Self.geojson(result)
        case .gpx: text = Self.gpx(result)
        }
        try CommandLineFiles.withOutput(output) { sink in try sink.write(text: text + "\n") }
        lap("output")
        if timing {
            func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18 }
            let matching = seconds(phases.first { $0.0 == "matching" }?.1 ?? .zero)
            let others = phases.map { String(format: "%@ %.3f s", $0.0, seconds($0.1)) }.joined(separator: ", ")
            try? FileDescriptor.standardError.writeAll(String(format: "geo match: matched %d fixes in %.6f s (%.0f fixes/s); %@\n",
                                                              fixes.count, matching, Double(fixes.count) / max(matching, 1e-9), others))
        }
    }

    private func runOnline(_ matcher: MapMatcher, _ entries: [TracePoint?]) throws {
        var live = OnlineMatcher(matcher: matcher)
        try CommandLineFiles.withOutput(output) { sink in
            var out = ""
            for entry in entries {
                guard let fix = entry else {
                    // Not given to the matcher: no position to match, nothing published.
                    out += "{\"matched\":null,\"nodes\":null,\"confidence\":null,\"offRoadProbability\":null,\"revised\":false}\n"
                    continue
                }
                let m = live.match(fix)
                _ = live.takeCommitted()
                out += "{\"matched\":"
                if let p = m.position {
                    out += "{\"latitude\":\(Self.degrees(p.coordinate.latitude)),\"longitude\":\(Self.degrees(p.coordinate.longitude))}"
                    out += ",\"nodes\":[\(p.nodes.0),\(p.nodes.1)]"
                } else {
                    out += "null,\"nodes\":null"
                }
                out += ",\"confidence\":\(Self.fraction(m.confidence)),\"offRoadProbability\":\(Self.fraction(m.offRoadProbability)),\"revised\":\(m.revised)}\n"
                if out.utf8.count > 1 << 16 {
                    try sink.write(text: out)
                    out = ""
                }
            }
            try sink.write(text: out)
        }
    }

    // MARK: Output

    private static func degrees(_ x: Double) -> String { JSONNumber.string(x, .coordinate) }
    private static func fraction(_ x: Double) -> String { JSONNumber.string(x, .init(decimals: 6)) }
    private static func metres(_ x: Double) -> String { JSONNumber.string(x, .error) }
    private static func position(_ c: Coordinate) -> String { "[\(degrees(c.longitude)),\(degrees(c.latitude))]" }

    /// OSRM `/match`'s response shape with flat `nodes` lists (CONTRACT.md): a tracepoint per
    /// entry of the track, null for a fix without a position (nil) as for one not matched.
    static func json(_ result: MatchResult, entries: [TracePoint?]) -> String {
        var s = "{\"code\":\"Ok\",\"matchings\":["
        for (i, m) in result.subMatchings.enumerated() {
            if i > 0 { s += "," }
            s += "{\"confidence\":\(fraction(m.confidence)),\"distance\":\(metres(m.distance)),\"duration\":\(metres(m.duration)),"
            s += "\"geometry\":{\"type\":\"LineString\",\"coordinates\":[" + m.geometry.map(position).joined(separator: ",") + "]},"
            s += "\"nodes\":[" + m.nodeIDs.map(String.init).joined(separator: ",") + "],"
            s += "\"ways\":[" + m.wayIDs.map(String.init).joined(separator: ",") + "]}"
        }
        s += "],\"tracepoints\":["
        var points = result.points.makeIterator()
        for (i, entry) in entries.enumerated() {
            if i > 0 { s += "," }
            guard entry != nil, let r = points.next()?.match else { s += "null"; continue }
            s += "{\"location\":\(position(r.coordinate)),\"distance\":\(metres(r.distance.meters)),"
            s += "\"matchings_index\":\(r.subMatching),\"nodes\":[\(r.nodes.0),\(r.nodes.1)]}"
        }
        return s + "]}"
    }

    static func geojson(_ result: MatchResult) -> String {
        let features = result.subMatchings.map { m in
            GeoJSONFeature(geometry: .lineString(m.geometry), properties: [
                "confidence": .number(m.confidence), "distance": .number(m.distance), "duration": .number(m.duration),
                "nodes": .array(m.nodeIDs.map { .number(Double($0)) }),
            ])
        }
        return String(decoding: GeoJSON.featureCollection(features).encoded(), as: UTF8.self)
    }

    static func gpx(_ result: MatchResult) -> String {
        var s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        s += "<gpx version=\"1.1\" creator=\"LocationKit geo match\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n<trk><name>matched</name>\n"
        for m in result.subMatchings {
            s += "<trkseg>\n"
            for c in m.geometry { s += "<trkpt lat=\"\(degrees(c.latitude))\" lon=\"\(degrees(c.longitude))\"/>\n" }
            s += "</trkseg>\n"
        }
        return s + "</trk>\n</gpx>"
    }
}

/// Reads a recorded track as fixes for matching, by the file's extension: GPX (GPXCodec),
/// GeoJSON (GeoCore), CSV, or NMEA (NMEACodec's decoder).
enum TrackReader {
    /// One entry per fix of the file, in the order `geo match` reports them: nil for a GPX
    /// point without a usable position, which keeps its place (a `null` tracepoint) and gets a
    /// warning with its line on standard error. CSV and GeoJSON refuse a bad row or time.
    static func read(_ path: String) throws -> [TracePoint?] {
        switch URL(fileURLWithPath: path).pathExtension.lowercased() {
        case "gpx": return try gpx(path)
        case "geojson", "json": return try geoJSON(path)
        case "csv": return try csv(path)
        default: return try nmea(path)
        }
    }

    /// Track points of every segment, then route points; accuracy by GPXCodec's policy
    /// (recorded, else HDOP × 5 m, else none). A point whose `lat` or `lon` is missing, not a
    /// number or out of range (GPXCodec leaves it out with a warning) is a nil in its place.
    static func gpx(_ path: String) throws -> [TracePoint?] {
        do {
            return try CommandLineFiles.withSource(path) { source in
                // Every warning kept: each dropped point needs its place.
                try gpxFixes(GPXStreamReader(source: source, options: GPXReadOptions(warningLimit: .max)), path: path)
            }
        } catch let error as GPXError {
            throw TrackCommandError("\(path):\(error.line):\(error.column): \(error.message)")
        }
    }

    /// The fixes `gpx(_:)` reads, from its reader.
    private static func gpxFixes(_ reader: GPXStreamReader, path: String) throws(GPXError) -> [TracePoint?] {
        var track: [TracePoint?] = [], route: [TracePoint?] = []
        var seen = 0, more = true
        while more {
            let event = try reader.next()
            more = event != nil
            // The warnings since the last event are about elements before this one.
            let warnings = reader.warnings
            for w in warnings[seen...] where w.code == .pointDropped {
                let name = w.element.split(separator: ":").last ?? ""
                guard name == "trkpt" || name == "rtept" else { continue }
                if name == "trkpt" { track.append(nil) } else { route.append(nil) }
                try? FileDescriptor.standardError.writeAll("geo match: \(path):\(w.line):\(w.column): \(w.message): its tracepoint is null\n")
            }
            seen = warnings.count
            switch event {
            case .trackPoint(let p)?: track.append(fix(p))
            case .routePoint(let p)?: route.append(fix(p))
            default: break
            }
        }
        return track + route
    }

    /// A GPX point as a fix.
    private static func fix(_ p: GPXPoint) -> TracePoint {
        if let l = Location(gpxPoint: p) { return TracePoint(l) }
        return TracePoint(coordinate: p.coordinate, time: p.time,
                          horizontalAccuracy: GPXAccuracyPolicy.default.horizontalAccuracy(recorded: nil, hdop: p.hdop))
    }

    /// LineStrings, MultiPoints, MultiLineStrings and Points, with times from a `coordTimes`
    /// or `times` property when present: one ISO 8601 string or Unix seconds per position (per
    /// line of a MultiLineString, an array for each, as togeojson writes them).
    /// - Throws: `TrackCommandError` naming the feature when the times do not pair up with the
    ///   positions one to one or one is not a time in the years 0001 to 9999: the file is
    ///   refused rather than matched with times on the wrong fixes.
    static func geoJSON(_ path: String) throws -> [TracePoint] {
        try CommandLineFiles.checkInput(path)
        let bytes = try FileDescriptor.readContents(of: path)
        let document: GeoJSON
        do { document = try GeoJSON(data: Data(bytes)) } catch { throw TrackCommandError("\(path): \(error)") }
        var out: [TracePoint] = []
        func time(_ v: JSONValue, _ place: String) throws -> Date {
            var date: Date?
            if case .string(let s) = v { date = ISO8601Time.date(from: s) }
            if case .number(let x) = v, CivilCalendar.fourDigitYears.contains(x) { date = Date(timeIntervalSince1970: x) }
            guard let date, CivilCalendar.fourDigitYears.contains(date.timeIntervalSince1970) else {
                throw TrackCommandError("\(path): \(place) is not an ISO 8601 time or Unix seconds in the years 0001 to 9999; the file is refused")
            }
            return date
        }
        /// The times of `count` positions from `value` (nil: the feature has none).
        func times(_ value: JSONValue?, count: Int, _ place: String) throws -> [Date]? {
            guard let value else { return nil }
            guard case .array(let values) = value, values.count == count else {
                throw TrackCommandError("\(path): \(place) must be an array of \(count) times, one per position; the file is refused")
            }
            return try values.enumerated().map { k, v in try time(v, "\(place)[\(k)]") }
        }
        func add(_ geometry: GeoJSONGeometry?, _ properties: [String: JSONValue]?, _ place: String) throws {
            let key = properties?["coordTimes"] != nil ? "coordTimes" : "times"
            let given = properties?[key], timesPlace = "\(place).properties.\(key)"
            func line(_ ps: [GeoJSONPosition], _ times: [Date]?) {
                for (i, p) in ps.enumerated() { out.append(TracePoint(coordinate: p.coordinate, time: times?[i])) }
            }
            switch geometry {
            case .point(let p)?:
                out.append(TracePoint(coordinate: p.coordinate, time: try times(given, count: 1, timesPlace)?[0]))
            case .multiPoint(let ps)?, .lineString(let ps)?:
                line(ps, try times(given, count: ps.count, timesPlace))
            case .multiLineString(let lines)?:
                guard let given else { for l in lines { line(l, nil) }; return }
                guard case .array(let perLine) = given, perLine.count == lines.count else {
                    throw TrackCommandError("\(path): \(timesPlace) must be an array of \(lines.count) arrays of times, one per line; the file is refused")
                }
                for (k, l) in lines.enumerated() { line(l, try times(perLine[k], count: l.count, "\(timesPlace)[\(k)]")) }
            case .geometryCollection(let gs)?:
                for (k, g) in gs.enumerated() { try add(g, nil, "\(place).geometries[\(k)]") }
            default: break
            }
        }
        switch document {
        case .geometry(let g): try add(g, nil, "$")
        case .feature(let f): try add(f.geometry, f.properties, "$")
        case .featureCollection(let fs): for (i, f) in fs.enumerated() { try add(f.geometry, f.properties, "$.features[\(i)]") }
        }
        return out
    }

    /// A CSV with a header row; a bad row is an error naming its line.
    static func csv(_ path: String) throws -> [TracePoint] {
        try CommandLineFiles.checkInput(path)
        let bytes = try FileDescriptor.readContents(of: path)
        var lines = String(decoding: bytes, as: UTF8.self).split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        while let last = lines.last, last.trimmingCharacters(in: .whitespaces).isEmpty { lines.removeLast() }
        guard let header = lines.first else { return [] }
        let names = header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        func column(_ options: [String]) -> Int? { names.firstIndex(where: options.contains) }
        guard let lat = column(["lat", "latitude"]), let lon = column(["lon", "lng", "longitude"]) else {
            throw TrackCommandError("\(path):1: the header names no lat/latitude and lon/lng/longitude columns")
        }
        let time = column(["time", "timestamp"]), acc = column(["accuracy", "horizontalaccuracy", "horizontal_accuracy"])
        var out: [TracePoint] = []
        for (n, line) in lines.enumerated().dropFirst() where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard lat < f.count, lon < f.count, let y = Double(f[lat]), let x = Double(f[lon]),
                  let c = try? Coordinate(latitude: y, longitude: x)
            else { throw TrackCommandError("\(path):\(n + 1): expected a latitude and longitude in degrees") }
            var t: Date?
            if let time, time < f.count, !f[time].isEmpty {
                if let seconds = Double(f[time]) { t = Date(timeIntervalSince1970: seconds) } else if let d = ISO8601Time.date(from: f[time]) {
                    t = d
                } else {
                    throw TrackCommandError("\(path):\(n + 1): time '\(f[time])' is neither ISO 8601 nor Unix seconds")
                }
                guard let seconds = t?.timeIntervalSince1970, CivilCalendar.fourDigitYears.contains(seconds) else {
                    throw TrackCommandError("\(path):\(n + 1): time '\(f[time])' is outside the years 0001 to 9999")
                }
            }
            let a = acc.flatMap { $0 < f.count ? Double(f[$0]) : nil }
            out.append(TracePoint(coordinate: c, time: t, horizontalAccuracy: a.map { .meters($0) }))
        }
        return out
    }

    static func nmea(_ path: String) throws -> [TracePoint?] {
        var decoder = NMEADecoder(options: NMEADecoder.Options(collectSatellites: false))
        var out: [TracePoint] = []
        try CommandLineFiles.readChunks(path) { chunk in decoder.decode(chunk) { if let l = $0.location { out.append(TracePoint(l)) } } }
        decoder.finish { if let l = $0.location { out.append(TracePoint(l)) } }
        return out
    }
}
