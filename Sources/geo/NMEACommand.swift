import ArgumentParser
import Foundation
import GeoCore
import NMEACodec

/// `geo nmea`: decode and check NMEA 0183 captures.
struct NMEACommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nmea",
        abstract: "Decode NMEA 0183 logs into fixes, or check them for bad sentences.",
        subcommands: [Decode.self, Check.self]
    )

    /// Reads a file (or standard input for `-`) in 64 KiB chunks.
    static func readChunks(_ path: String, _ body: (UnsafeRawBufferPointer) -> Void) throws {
        let handle: FileHandle
        if path == "-" {
            handle = FileHandle.standardInput
        } else {
            guard let h = FileHandle(forReadingAtPath: path) else {
                throw ValidationError("cannot open \(path)")
            }
            handle = h
        }
        defer { if path != "-" { try? handle.close() } }
        while let data = try handle.read(upToCount: 1 << 16), !data.isEmpty {
            data.withUnsafeBytes(body)
        }
    }

    /// Buffered standard output.
    struct Output {
        private var buffer = ""
        mutating func write(_ s: String) {
            buffer += s
            if buffer.utf8.count > 1 << 16 { flush() }
        }
        mutating func flush() {
            FileHandle.standardOutput.write(Data(buffer.utf8))
            buffer = ""
        }
    }

    struct Decode: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decode a log into one fix per epoch: JSON lines (default) or a GPX 1.1 track.",
            discussion: """
            JSON fields: time (ISO 8601 UTC), mode (0 unknown, 1 no fix, 2 2D, 3 3D), lat, lon \
            (degrees), altMSL, altHAE (m), speed (m/s), track (degrees true), climb (m/s), \
            eph, epv (95 % errors in metres, as gpsd), hdop, satellitesUsed; null when unknown.
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
                collectSatellites: false
            )
            var decoder = NMEADecoder(options: options)
            var out = Output()
            if format == .gpx {
                let name = file == "-" ? "stdin" : URL(fileURLWithPath: file).lastPathComponent
                out.write(GPXWriter.header(name: name))
            }
            let format = self.format
            let emit: (NMEAFix) -> Void = { fix in
                switch format {
                case .json: out.write(FixJSON.line(fix) + "\n")
                case .gpx: if let p = GPXWriter.trackPoint(fix) { out.write(p) }
                }
            }
            try NMEACommand.readChunks(file) { chunk in decoder.decode(chunk) { emit($0) } }
            decoder.finish { emit($0) }
            if format == .gpx { out.write(GPXWriter.footer) }
            out.flush()
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Count sentences by type and talker; list checksum failures and malformed lines."
        )

        @Argument(help: "NMEA log file, or - for standard input.")
        var file: String

        func run() throws {
            var scanner = NMEAScanner()
            var byType: [String: Int] = [:]
            var byTalker: [String: Int] = [:]
            var byAddress: [String: Int] = [:]
            var checksumFailures: [String] = []
            var malformed: [String] = []
            let handle: (NMEAFrame) -> Void = { frame in
                let where_ = "line \(frame.line), column \(frame.column)"
                switch frame.status {
                case .valid:
                    do throws(NMEAError) {
                        let sentence = try NMEASentence(body: frame.body)
                        let address = sentence.address
                        byAddress[address.description, default: 0] += 1
                        byType[address.talker == .proprietary ? "P\(address.type)" : address.type.description, default: 0] += 1
                        byTalker[address.talker.description, default: 0] += 1
                        if case .raw = sentence, NMEASentence.isStandardType(address.type) {
                            malformed.append("\(where_): wrong field count for \(address.type): \(frame.text)")
                        }
                    } catch {
                        malformed.append("\(where_): \(error.message): \(frame.text)")
                    }
                case .badChecksum: checksumFailures.append("\(where_): \(frame.text)")
                case .overlong: malformed.append("\(where_): \(frame.error?.message ?? "")")
                case .missingChecksum, .binaryNoise, .truncated:
                    malformed.append("\(where_): \(frame.error?.message ?? ""): \(frame.text)")
                }
            }
            try NMEACommand.readChunks(file) { chunk in scanner.scan(chunk) { handle($0) } }
            scanner.finish { handle($0) }

            var out = Output()
            let s = scanner.statistics
            out.write("lines: \(s.lines)\naccepted sentences: \(s.accepted)\n")
            out.write("sentences by address:\n")
            for (k, v) in byAddress.sorted(by: { $0.key < $1.key }) { out.write("  \(k) \(v)\n") }
            out.write("sentences by type:\n")
            for (k, v) in byType.sorted(by: { $0.key < $1.key }) { out.write("  \(k) \(v)\n") }
            out.write("sentences by talker:\n")
            for (k, v) in byTalker.sorted(by: { $0.key < $1.key }) { out.write("  \(k) \(v)\n") }
            out.write("checksum failures: \(checksumFailures.count)\n")
            for c in checksumFailures { out.write("  \(c)\n") }
            out.write("malformed lines: \(malformed.count)\n")
            for m in malformed { out.write("  \(m)\n") }
            out.flush()
        }
    }
}

/// One JSON object per fix, written by hand so field order and number formats are stable.
enum FixJSON {
    static func line(_ f: NMEAFix) -> String {
        func num(_ v: Double?, _ digits: Int) -> String {
            guard let v, v.isFinite else { return "null" }
            return String(format: "%.\(digits)f", v)
        }
        let time = f.isoTime.map { "\"\($0)\"" } ?? "null"
        return "{\"time\":\(time),\"mode\":\(f.mode?.rawValue ?? 0),\"lat\":\(num(f.latitude, 9)),"
            + "\"lon\":\(num(f.longitude, 9)),\"altMSL\":\(num(f.altitudeMSL, 4)),\"altHAE\":\(num(f.altitudeHAE, 4)),"
            + "\"speed\":\(num(f.speed, 3)),\"track\":\(num(f.track, 4)),\"climb\":\(num(f.climb, 3)),"
            + "\"eph\":\(num(f.eph, 3)),\"epv\":\(num(f.epv, 3)),\"hdop\":\(num(f.sky.hdop, 2)),"
            + "\"satellitesUsed\":\(f.sky.satellitesUsed.map(String.init) ?? "null")}"
    }
}

/// A minimal GPX 1.1 track writer (https://www.topografix.com/GPX/1/1/): one `trkseg` of the
/// fixes with a time and a 2D or 3D position.
enum GPXWriter {
    static func header(name: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="LocationKit geo nmea" xmlns="http://www.topografix.com/GPX/1/1">
          <trk>
            <name>\(escape(name))</name>
            <trkseg>

        """
    }

    static let footer = "    </trkseg>\n  </trk>\n</gpx>\n"

    /// A `trkpt` with children in the schema's order: ele, time, geoidheight, fix, sat, hdop, vdop, pdop.
    static func trackPoint(_ f: NMEAFix) -> String? {
        guard let time = f.isoTime, let lat = f.latitude, let lon = f.longitude, let mode = f.mode,
              mode >= .twoDimensional else { return nil }
        var s = "      <trkpt lat=\"\(String(format: "%.9f", lat))\" lon=\"\(String(format: "%.9f", lon))\">"
        if mode == .threeDimensional, let ele = f.altitudeMSL { s += "<ele>\(String(format: "%.3f", ele))</ele>" }
        s += "<time>\(escape(time))</time>"
        if let g = f.geoidSeparation { s += "<geoidheight>\(String(format: "%.3f", g))</geoidheight>" }
        let fix = f.quality == .differential ? "dgps" : (mode == .threeDimensional ? "3d" : "2d")
        s += "<fix>\(fix)</fix>"
        if let n = f.sky.satellitesUsed, n >= 0 { s += "<sat>\(n)</sat>" }
        if let h = f.sky.hdop { s += "<hdop>\(String(format: "%.2f", h))</hdop>" }
        if let v = f.sky.vdop { s += "<vdop>\(String(format: "%.2f", v))</vdop>" }
        if let p = f.sky.pdop { s += "<pdop>\(String(format: "%.2f", p))</pdop>" }
        return s + "</trkpt>\n"
    }

    /// Escapes the five XML special characters (XML 1.0 §2.4) and drops characters XML 1.0
    /// does not allow.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                let v = scalar.value
                if v == 0x9 || v == 0xA || v == 0xD || (v >= 0x20 && v != 0xFFFE && v != 0xFFFF) {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
