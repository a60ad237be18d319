import ArgumentParser
import Platform
import GeoBase
import NMEACodec
import SystemIO
import TraceFiles

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
            var decoder = NMEADecoder(options: .init(acceptingMissingChecksum: acceptMissingChecksum, correctingWeekRollover: !noRolloverCorrection,
                                                     geoid: try GeoidGridFiles.projEGM96()))
            switch format {
            case .json:
                let emit: (NMEAFix) -> Void = { fix in standardOutput.withBuffer { fix.writeJSONLine(to: &$0) } }
                try CommandLineFiles.withSource(file) { source in try source.forEachChunk { chunk in decoder.decode(chunk, emit) } }
                decoder.finish(emit)
            case .gpx:
                let name = file == "-" ? "stdin" : URL(fileURLWithPath: file).lastPathComponent
                _ = try CommandLineFiles.withSource(file) { source in
                    try decoder.writeGPXTrack(from: &source, to: standardOutput, trackName: name, creator: "LocationKit geo nmea")
                }
            }
            // A damaged or cut log is never a silent success: one line says what was dropped.
            if let dropped = decoder.scanner.statistics.droppedLines(missingChecksumDropped: !acceptMissingChecksum) {
                CommandLineFiles.note("nmea", "\(file): \(dropped); 'geo nmea check \(file)' lists them")
            }
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
            try CommandLineFiles.withSource(file) { source in try source.forEachChunk { survey.scan($0) } }
            survey.finish()

            standardOutput.write(survey.report)
        }
    }
}
