import Foundation
import GeoTestSupport
import SystemIO
import Testing
#if canImport(Glibc)
import Glibc
#endif

// Every subcommand of `geo --help` against a full disk (`/dev/full`, ENOSPC) and a pipe whose
// reader is gone (EPIPE): one line on standard error and status 74 for the first, a quiet end by
// SIGPIPE (status 141, nothing on standard error) for the second, never a crash or a lie.

/// One `geo` invocation of the table; `{dir}` in an argument is the test's folder.
private struct OutputCase: CustomTestStringConvertible, Sendable {
    let arguments: [String]
    var stdin = ""
    /// Whether the results go to an `-o` file (then tested as `-o /dev/full` and
    /// `-o /dev/stdout`) rather than to standard output.
    var writesOutputFile = false
    var testDescription: String { "geo " + arguments.joined(separator: " ") }
}

private let track = """
    <?xml version="1.0" encoding="UTF-8"?>
    <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
    \((0..<60).map { i in
        "<trkpt lat=\"\(48 + Double(i) * 0.0001)\" lon=\"11.0\"><ele>500</ele><time>2024-05-01T10:\(String(format: "%02d", i)):00Z</time></trkpt>"
    }.joined(separator: "\n"))
    </trkseg></trk></gpx>
    """

private let nmea = """
    $GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47
    $GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A

    """

/// Every leaf subcommand of `geo --help`, with inputs it accepts.
private let cases: [OutputCase] = [
    OutputCase(arguments: ["demo", "--snapshot", "{dir}/demo.png"]),
    OutputCase(arguments: ["distance", "52.5,13.4", "48.85,2.35"]),
    OutputCase(arguments: ["distance", "--batch"], stdin: "52.5 13.4 48.85 2.35\n0 0 1 1\n"),
    OutputCase(arguments: ["sample-city", "-o", "{out}"], writesOutputFile: true),
    OutputCase(arguments: ["osm", "info", "{dir}/city.osm.pbf"]),
    OutputCase(arguments: ["gpx", "stats", "{dir}/track.gpx"]),
    OutputCase(arguments: ["gpx", "stats", "--json", "-"], stdin: track),
    OutputCase(arguments: ["gpx", "convert", "{dir}/track.gpx", "--to", "gpx"]),
    OutputCase(arguments: ["gpx", "convert", "{dir}/track.gpx", "--to", "geojson"]),
    OutputCase(arguments: ["gpx", "convert", "{dir}/track.gpx", "--to", "csv"]),
    OutputCase(arguments: ["gpx", "convert", "{dir}/track.gpx", "--to", "csv", "-o", "{out}"], writesOutputFile: true),
    OutputCase(arguments: ["gpx", "clean", "{dir}/track.gpx"]),
    OutputCase(arguments: ["gpx", "clean", "{dir}/track.gpx", "-o", "{out}"], writesOutputFile: true),
    OutputCase(arguments: ["gpx", "smooth", "{dir}/track.gpx"]),
    OutputCase(arguments: ["gpx", "smooth", "{dir}/track.gpx", "-o", "{out}"], writesOutputFile: true),
    OutputCase(arguments: ["gpx", "simplify", "{dir}/track.gpx", "--tolerance", "5"]),
    OutputCase(arguments: ["gpx", "simplify", "{dir}/track.gpx", "--tolerance", "5", "-o", "{out}"], writesOutputFile: true),
    OutputCase(arguments: ["eval", "filters", "--seeds", "1", "--cases", "sparse"]),
    OutputCase(arguments: ["nmea", "decode", "-"], stdin: nmea),
    OutputCase(arguments: ["nmea", "decode", "--format", "gpx", "-"], stdin: nmea),
    OutputCase(arguments: ["nmea", "check", "-"], stdin: nmea),
    OutputCase(arguments: ["track", "--source", "gpx:{dir}/track.gpx?speed=max&accuracy=8", "--preset", "raw"]),
    OutputCase(arguments: ["simulate", "--route", "{dir}/line.geojson", "--fast", "--count", "50"]),
    OutputCase(arguments: ["extract", "{dir}/city.osm.pbf", "-o", "{out}"], writesOutputFile: true),
    OutputCase(arguments: ["route", "--graph", "{dir}/city.graph", "--from", "47.997,10.996", "--to", "48.003,11.004"]),
    OutputCase(arguments: ["route", "--graph", "{dir}/city.graph", "--batch"], stdin: "47.997 10.996 48.003 11.004\n"),
]

/// Runs `geo` with standard output on `output` and standard error into a file.
private func geo(_ arguments: [String], stdin: String, output: ChildProcess.Redirection, in dir: URL) async throws -> (SystemIO.ExitStatus, String) {
    let input = dir.appendingPathComponent("stdin"), error = dir.appendingPathComponent("stderr")
    try Data(stdin.utf8).write(to: input)
    let exit = try await ChildProcess.run(.init(executable: GeoProcess.geoExecutable.path, arguments: arguments,
                                                standardInput: .file(input.path), standardOutput: output,
                                                standardError: .file(error.path), newProcessGroup: true), timeout: .seconds(300))
    return (exit, try String(contentsOf: error, encoding: .utf8))
}

/// The inputs the table names: a GPX track, a GeoJSON line, the sample city and its graph.
private func prepareInputs(in dir: URL) async throws {
    try Data(track.utf8).write(to: dir.appendingPathComponent("track.gpx"))
    try Data(#"{"type":"LineString","coordinates":[[11.0,48.0],[11.01,48.01]]}"#.utf8).write(to: dir.appendingPathComponent("line.geojson"))
    let pbf = dir.appendingPathComponent("city.osm.pbf").path
    #expect(try await GeoProcess.geo(["sample-city", "-o", pbf]).status == 0)
    #expect(try await GeoProcess.geo(["extract", pbf, "-o", dir.appendingPathComponent("city.graph").path]).status == 0)
}

@Test(arguments: cases)
private func everySubcommand_fullDisk_oneLine_status74_closedPipe_quietSIGPIPE(_ c: OutputCase) async throws {
    try await withTemporaryDirectory { dir in
        try await prepareInputs(in: dir)
        func arguments(out: String) -> [String] {
            c.arguments.map { $0.replacingOccurrences(of: "{dir}", with: dir.path).replacingOccurrences(of: "{out}", with: out) }
        }
        // The same command succeeds with somewhere to write, so the failures below are the writes'.
        let ok = try await geo(arguments(out: dir.appendingPathComponent("result").path), stdin: c.stdin, output: .file(dir.appendingPathComponent("stdout").path), in: dir)
        #expect(ok.0 == .exited(0), "\(ok.1)")

        // Full disk.
        let full = try await geo(arguments(out: "/dev/full"), stdin: c.stdin, output: .file("/dev/full"), in: dir)
        let complaints = full.1.split(separator: "\n").filter { $0.contains("No space left on device") }
        #expect(full.0 != .exited(0) && !isCrash(full.0), "\(full.0): \(full.1)")
        #expect(complaints.count == 1, "one line about the full disk: \(full.1)")
        if c.writesOutputFile {
            #expect(complaints.first?.contains("/dev/full") == true, "names the file: \(full.1)")
        } else {
            #expect(full.0 == .exited(74), "\(full.1)")
            #expect(complaints.first == "geo: cannot write standard output: No space left on device", "\(full.1)")
        }

        // A reader that is gone, on standard output (through `-o /dev/stdout` for file outputs).
        let pipe = try FileDescriptor.pipe()
        try pipe.read.close()
        defer { try? pipe.write.close() }
        let closed = try await geo(arguments(out: "/dev/stdout"), stdin: c.stdin, output: .descriptor(pipe.write), in: dir)
        // Also where the EPIPE reaches `geo` wrapped in a module's error (`OSMError` keeps only
        // a message): SystemIO's `BrokenPipe` remembers it.
        #expect(closed.0 == .signaled(SIGPIPE), "\(closed.0): \(closed.1)")
        #expect(!closed.1.lowercased().contains("pipe") && !closed.1.contains("cannot write"), "quiet: \(closed.1)")
    }
}

/// Killed by a signal other than the quiet SIGPIPE (SIGILL from a trap, SIGSEGV …).
private func isCrash(_ status: SystemIO.ExitStatus) -> Bool {
    if case .signaled(let signal) = status { return signal != SIGPIPE }
    return false
}

@Test func outputFile_fifo_isWrittenThrough_andARegularFileIsReplacedWhole() async throws {
    try await withTemporaryDirectory { dir in
        try await prepareInputs(in: dir)
        let fifo = dir.appendingPathComponent("out.fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = try FileDescriptor(opening: fifo, .readOnly, options: FileDescriptor.Options(rawValue: O_NONBLOCK))
        defer { try? reader.close() }
        // Small enough for the FIFO's buffer, so the test reads it after geo ends.
        let r = try await GeoProcess.geo(["gpx", "convert", dir.appendingPathComponent("track.gpx").path, "--to", "geojson", "-o", fifo])
        #expect(r.status == 0, "\(r.stderr)")
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let n = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
        #expect(String(decoding: buffer[0..<n], as: UTF8.self).hasPrefix("{"), "GeoJSON came through the FIFO")
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "still a FIFO")

        // A failing conversion leaves an existing regular file as it was (atomic replacement).
        let out = dir.appendingPathComponent("out.csv")
        try Data("old contents\n".utf8).write(to: out)
        let bad = try await GeoProcess.geo(["gpx", "convert", "-", "--to", "csv", "-o", out.path], stdin: "<gpx><trk><trkseg><trkpt")
        #expect(bad.status != 0)
        #expect(try String(contentsOf: out, encoding: .utf8) == "old contents\n")
    }
}
