import GeoBase
import ArgumentParser
import Foundation
import GeoCore
import GPXCodec
import NMEACodec
import SystemIO

/// `geo nmea`: decode and check NMEA 0183 captures.
struct NMEACommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nmea",
        abstract: "Decode NMEA 0183 logs into fixes, or check them for bad sentences.",
        subcommands: [Decode.self, Check.self]
    )

    struct Decode: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "decode",
            abstract: "Decode a log into one fix per epoch: JSON lines (default) or a GPX 1.1 track.",
            discussion: """
            JSON fields: time (ISO 8601 UTC), mode (0 unknown, 1 no fix, 2 2D, 3 3D), lat, lon \
            (degrees), altMSL, altHAE (m), speed (m/s), track (degrees true), climb (m/s), \
            eph, epv (95 % errors in metres, as gpsd), hdop, satellitesUsed; null when unknown. \
            Without a geoid separation from the receiver, altHAE uses EGM96: PROJ's egm96_15.gtx \
            when installed (PROJ_DATA, /usr/share/proj, …); without it altHAE stays null there.
            """
        )

        enum Format: String, ExpressibleByArgument, CaseIterable { case json, gpx }

        @Argument(help: "NMEA log file, or - for standard input.")
        var file: String

        @Option(help: "Output format: json (JSON lines) or gpx.")
        var format: Format = .json

        @Flag(help: "Accept sentences without a *hh checksum.")
        var acceptMissingChecksum = false

        @Flag(help: "Do not correct dates before 2000 for the GPS week rollover.")
        var noRolloverCorrection = false

        func run() throws {
            let options = NMEADecoder.Options(
                scanner: .init(acceptMissingChecksum: acceptMissingChecksum),
                weekRolloverPivot: noRolloverCorrection ? nil : NMEADecoder.Options().weekRolloverPivot,
                collectSatellites: false,
                geoid: try GeoidGridFiles.projEGM96()
            )
            var decoder = NMEADecoder(options: options)
            switch format {
            case .json:
                let emit: (NMEAFix) -> Void = { fix in standardOutput.withBuffer { FixJSON.write(fix, to: &$0) } }
                try CommandLineFiles.readChunks(file) { chunk in decoder.decode(chunk, emit) }
                decoder.finish(emit)
            case .gpx:
                let name = file == "-" ? "stdin" : URL(fileURLWithPath: file).lastPathComponent
                var writer = try GPXStreamWriter(sink: standardOutput, header: GPXHeader(creator: "LocationKit geo nmea"))
                try writer.beginTrack(GPXPathInfo(name: name))
                try writer.beginSegment()
                var failure: (any Error)?
                let emit: (NMEAFix) -> Void = { fix in
                    guard failure == nil, let point = GPXPoint(fix) else { return }
                    do { try writer.write(trackPoint: point) } catch { failure = error }
                }
                try CommandLineFiles.readChunks(file) { chunk in decoder.decode(chunk, emit) }
                decoder.finish(emit)
                if let failure { throw failure }
                try writer.endSegment()
                try writer.endTrack()
                _ = try writer.finish()
            }
            reportRejectedLines(decoder.scanner.statistics)
        }

        /// One line on standard error when lines were dropped (a damaged or cut log is never a
        /// silent success); `geo nmea check` lists each with its line and column.
        private func reportRejectedLines(_ s: NMEAScanner.Statistics) {
            let counts = [(s.badChecksum, "bad checksum"), (acceptMissingChecksum ? 0 : s.missingChecksum, "no checksum"),
                          (s.overlong, "overlong"), (s.binaryNoise, "binary noise"), (s.truncated, "cut by the next sentence")]
                .filter { $0.0 > 0 }
            guard !counts.isEmpty else { return }
            let total = counts.reduce(0) { $0 + $1.0 }
            try? FileDescriptor.standardError.writeAll(
                "geo nmea: \(file): \(total) line\(total == 1 ? "" : "s") dropped (\(counts.map { "\($0.0) \($0.1)" }.joined(separator: ", "))); 'geo nmea check \(file)' lists them\n")
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Count sentences by type and talker; list checksum failures and malformed lines."
        )

        @Argument(help: "NMEA log file, or - for standard input.")
        var file: String

        func run() throws {
            var survey = NMEALogSurvey()
            try CommandLineFiles.readChunks(file) { survey.scan($0) }
            survey.finish()

            let out = standardOutput
            let s = survey.statistics
            out.write("lines: \(s.lines)\naccepted sentences: \(s.accepted)\n")
            out.write("sentences by address:\n")
            for (k, v) in survey.byAddress.sorted(by: { $0.key < $1.key }) { out.write("  \(k) \(v)\n") }
            out.write("sentences by type:\n")
            for (k, v) in survey.byType.sorted(by: { $0.key < $1.key }) { out.write("  \(k) \(v)\n") }
            out.write("sentences by talker:\n")
            for (k, v) in survey.byTalker.sorted(by: { $0.key < $1.key }) { out.write("  \(k) \(v)\n") }
            out.write("checksum failures: \(survey.checksumFailures.count)\n")
            for c in survey.checksumFailures { out.write("  \(c)\n") }
            out.write("malformed lines: \(survey.malformed.count)\n")
            for m in survey.malformed { out.write("  \(m)\n") }
        }
    }
}

/// One JSON object per fix, written by hand so field order and number formats are stable
/// (decimals per quantity: ``JSONNumber``), as bytes straight into the output buffer.
enum FixJSON {
    /// Appends the fix's JSON object and a newline.
    static func write(_ f: NMEAFix, to out: inout BufferedWriter) {
        typealias N = JSONNumber
        out.append("{\"time\":")
        f.withISOTime { time in
            guard let time else { return out.append("null") }
            out.append(byte: UInt8(ascii: "\""))
            out._writeASCII(time)
            out.append(byte: UInt8(ascii: "\""))
        }
        out.append(",\"mode\":")
        out.append(integer: f.mode?.rawValue ?? 0)
        out.append(",\"lat\":"); N.write(f.latitude, .coordinate, to: &out)
        out.append(",\"lon\":"); N.write(f.longitude, .coordinate, to: &out)
        out.append(",\"altMSL\":"); N.write(f.altitudeMSL, .altitude, to: &out)
        out.append(",\"altHAE\":"); N.write(f.altitudeHAE, .altitude, to: &out)
        out.append(",\"speed\":"); N.write(f.speed, .speed, to: &out)
        out.append(",\"track\":"); N.write(f.track, .course, to: &out)
        out.append(",\"climb\":"); N.write(f.climb, .speed, to: &out)
        out.append(",\"eph\":"); N.write(f.eph, .error, to: &out)
        out.append(",\"epv\":"); N.write(f.epv, .error, to: &out)
        out.append(",\"hdop\":"); N.write(f.sky.hdop, .dop, to: &out)
        out.append(",\"satellitesUsed\":")
        if let used = f.sky.satellitesUsed { out.append(integer: used) } else { out.append("null") }
        out.append("}\n")
    }
}

extension GPXPoint {
    /// The fix as a GPX track point (GPX 1.1 `wptType`), or nil without a time and a 2D or 3D
    /// position: elevation is MSL, `fix` is dgps for differential fixes, DOPs from the sky.
    init?(_ f: NMEAFix) {
        guard let time = f.time, let lat = f.latitude, let lon = f.longitude, let mode = f.mode, mode >= .twoDimensional,
              let coordinate = try? Coordinate(latitude: lat, longitude: lon) else { return nil }
        self.init(coordinate: coordinate, elevation: mode == .threeDimensional ? f.altitudeMSL.map(Distance.meters) : nil, time: time)
        geoidHeight = f.geoidSeparation.map(Distance.meters)
        fix = f.quality == .differential ? .dgps : (mode == .threeDimensional ? .threeDimensional : .twoDimensional)
        satellites = f.sky.satellitesUsed.flatMap { $0 >= 0 ? $0 : nil }
        hdop = f.sky.hdop
        vdop = f.sky.vdop
        pdop = f.sky.pdop
    }
}
