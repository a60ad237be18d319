/// What an NMEA log holds, sentence by sentence (`geo nmea check`): accepted sentences counted
/// by address (`GPGGA`), type (`GGA`; proprietary ones as `P` + their type) and talker, and
/// every line the scanner or the parser refused, with its line and column.
public struct NMEALogSurvey: Sendable {
    /// Accepted sentences per address, type and talker.
    public private(set) var byAddress: [String: Int] = [:]
    public private(set) var byType: [String: Int] = [:]
    public private(set) var byTalker: [String: Int] = [:]
    /// `line L, column C: TEXT` of each sentence whose checksum does not match.
    public private(set) var checksumFailures: [String] = []
    /// `line L, column C: WHY: TEXT` of each other refused line: no checksum, overlong,
    /// binary noise, cut by the next sentence, a field the parser refused, or a standard
    /// sentence with the wrong number of fields.
    public private(set) var malformed: [String] = []
    private var scanner = NMEAScanner()

    public init() {}

    /// What the scanner counted: lines, accepted sentences, refusals by kind.
    public var statistics: NMEAScanner.Statistics { scanner.statistics }

    /// Surveys the next chunk of the log.
    public mutating func scan(_ chunk: UnsafeRawBufferPointer) {
        var scanner = self.scanner // lent out, so `add` may change the survey meanwhile
        self.scanner = NMEAScanner(unreserved: scanner.options)
        scanner.scan(chunk) { add($0) }
        self.scanner = scanner
    }

    /// Surveys what the log's last chunk left unfinished.
    public mutating func finish() {
        var scanner = self.scanner // lent out, so `add` may change the survey meanwhile
        self.scanner = NMEAScanner(unreserved: scanner.options)
        scanner.finish { add($0) }
        self.scanner = scanner
    }

    private mutating func add(_ frame: NMEAFrame) {
        let place = "line \(frame.line), column \(frame.column)"
        switch frame.status {
        case .valid:
            do throws(NMEAError) {
                let sentence = try NMEASentence(body: frame.body)
                let address = sentence.address
                byAddress[address.description, default: 0] += 1
                byType[address.talker == .proprietary ? "P\(address.type)" : address.type.description, default: 0] += 1
                byTalker[address.talker.description, default: 0] += 1
                if case .raw = sentence, NMEASentence.isStandardType(address.type) {
                    malformed.append("\(place): wrong field count for \(address.type): \(frame.text)")
                }
            } catch {
                malformed.append("\(place): \(error.message): \(frame.text)")
            }
        case .badChecksum: checksumFailures.append("\(place): \(frame.text)")
        case .overlong: malformed.append("\(place): \(frame.error?.message ?? "")")
        case .missingChecksum, .binaryNoise, .truncated:
            malformed.append("\(place): \(frame.error?.message ?? ""): \(frame.text)")
        }
    }
}
