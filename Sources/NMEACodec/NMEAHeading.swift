/// A true heading from NMEA 0183: `HDT` (heading, true) or `THS` (true heading and status,
/// NMEA 0183 v3.0 and later, which replaces HDT and says whether the heading is valid).
///
/// `$GPHDT,274.07,T*03` — heading 274.07° true. `$GNTHS,77.52,A*2E` — heading 77.52° true,
/// mode A (autonomous). An HDT without a heading (`$GPHDT,,T*1B`, as a receiver without a
/// heading sensor sends) is no heading.
public struct NMEAHeading: Hashable, Sendable {
    /// The talker of the sentence (`GP`, `GN`, `HE` for a gyro compass …).
    public var talker: NMEATalker
    /// Degrees clockwise from true north, [0, 360).
    public var degrees: Double
    /// THS's mode indicator; HDT has none (nil).
    public var mode: Mode?

    public init(talker: NMEATalker, degrees: Double, mode: Mode? = nil) {
        self.talker = talker
        self.degrees = degrees
        self.mode = mode
    }

    /// THS's mode indicator (NMEA 0183 v4.11, THS field 2).
    public enum Mode: Character, Hashable, Sendable {
        /// A: autonomous, measured.
        case autonomous = "A"
        /// E: estimated (dead reckoning).
        case estimated = "E"
        /// M: entered by hand.
        case manual = "M"
        /// S: from a simulator.
        case simulator = "S"
        /// V: not valid.
        case notValid = "V"
    }

    /// Whether the heading may be used: every HDT with a heading, a THS unless its mode is V.
    public var isValid: Bool { mode != .notValid }
}

extension NMEASentenceType {
    /// THS, true heading and status.
    public static var ths: NMEASentenceType { NMEASentenceType(rawValue: 0x5448530000000000) } // "THS"
}

extension NMEAHeading {
    /// The heading an HDT or THS sentence carries, or nil for any other sentence and for one
    /// without a heading.
    /// - Throws: `NMEAError` `.malformedSentence` for an HDT or THS whose heading is not a number
    ///   in [0, 360] or whose THS mode is not one of A, E, M, S, V.
    public init?(_ sentence: NMEASentence) throws(NMEAError) {
        switch sentence {
        case .hdt(let h):
            guard let degrees = h.heading else { return nil }
            try self.init(talker: h.talker, checking: degrees, mode: nil)
        case .raw(let raw) where raw.address.type == .ths:
            guard let field = raw.fields.first, !field.isEmpty else { return nil }
            guard let degrees = Double(field) else {
                throw NMEAError(.malformedSentence, "THS heading '\(field)' is not a number")
            }
            let modeField = raw.fields.count > 1 ? raw.fields[1] : ""
            guard modeField.count == 1, let mode = modeField.first.flatMap(Mode.init(rawValue:)) else {
                throw NMEAError(.malformedSentence, "THS mode '\(modeField)' is not one of A, E, M, S, V")
            }
            try self.init(talker: raw.address.talker, checking: degrees, mode: mode)
        default:
            return nil
        }
    }

    private init(talker: NMEATalker, checking degrees: Double, mode: Mode?) throws(NMEAError) {
        guard degrees >= 0, degrees <= 360 else {
            throw NMEAError(.malformedSentence, "heading \(degrees)° is outside 0…360")
        }
        self.init(talker: talker, degrees: degrees == 360 ? 0 : degrees, mode: mode)
    }
}
