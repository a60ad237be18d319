import GeoBase

/// How the scanner judged one candidate sentence.
public enum NMEAFrameStatus: Hashable, Sendable {
    /// The `*HH` checksum matches.
    case valid
    /// No `*HH` checksum; accepted only with `NMEAScanner.Options.acceptMissingChecksum`.
    case missingChecksum
    /// The checksum does not match (or is not two hex digits).
    case badChecksum
    /// Longer than `Options.maximumLength`; `bytes` holds only the first part.
    case overlong
    /// A non-printable byte inside the sentence; `bytes` stops before it.
    case binaryNoise
    /// Another `$` or `!` began before this sentence's line ended; `bytes` is the part seen.
    case truncated

    /// Whether a decoder should use the sentence (`valid`, or `missingChecksum` when accepted).
    public var isAccepted: Bool { self == .valid }
}

/// One candidate sentence as framed by `NMEAScanner`.
///
/// `bytes` runs from the `$` or `!` up to (not including) the CR/LF, checksum included. It
/// points into the caller's buffer or the scanner's carry buffer and is valid only inside
/// the callback that receives it.
public struct NMEAFrame {
    /// The sentence text, `$` through the checksum digits.
    public let bytes: UnsafeRawBufferPointer
    /// The verdict; `.missingChecksum` frames arrive as `.valid` when the caller opted in.
    public let status: NMEAFrameStatus
    /// 1-based input line the sentence starts on.
    public let line: Int
    /// 1-based column (byte) of the `$` within that line.
    public let column: Int
    /// 0-based byte offset of the `$` from the start of the stream.
    public let offset: Int

    /// The sentence without its `$`/`!` and `*HH`: address and fields, what the checksum covers.
    public var body: UnsafeRawBufferPointer {
        guard bytes.count > 1 else { return UnsafeRawBufferPointer(rebasing: bytes[bytes.count...]) }
        var end = bytes.count
        if end >= 4, bytes[end - 3] == UInt8(ascii: "*") { end -= 3 }
        return UnsafeRawBufferPointer(rebasing: bytes[1..<end])
    }

    /// The sentence as text (allocates; for diagnostics and raw values, not the hot path).
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Why the frame was rejected, as a typed error carrying its line, column and offset;
    /// nil for an accepted frame.
    public var error: NMEAError? {
        let (code, message): (NMEAError.Code, String)
        switch status {
        case .valid: return nil
        case .missingChecksum: (code, message) = (.missingChecksum, "missing checksum")
        case .badChecksum: (code, message) = (.badChecksum, "checksum does not match")
        case .overlong: (code, message) = (.overlongLine, "line longer than the scanner's bound")
        case .binaryNoise: (code, message) = (.binaryNoise, "non-printable byte inside the sentence")
        case .truncated: (code, message) = (.malformedSentence, "sentence cut off by the next one")
        }
        return NMEAError(code, message, line: line, column: column, offset: offset)
    }
}

/// A framing scanner for NMEA 0183 byte streams (NMEA 0183 v4.11 §5.3, with gpsd's
/// packet-lexer tolerances).
///
/// Feed it any chunking of the stream: a sentence split across reads is carried over in a
/// bounded buffer. It tolerates a missing CR (LF alone, or CR alone, ends a line), a doubled
/// `$$` or a sentence cut off by the `$` of the next one (the scan restarts at the last `$`),
/// and binary noise between sentences (skipped and counted). A line longer than
/// `maximumLength` is reported once as `.overlong` and dropped to its end, so memory stays
/// bounded whatever the input. Every candidate sentence is reported, accepted or not, so a
/// checker can list rejects; decoders use `status.isAccepted`.
///
/// - Complexity: O(n) in the bytes fed, one pass, no allocation except the carry buffer
///   (reserved once).
public struct NMEAScanner: Sendable {
    /// Scanner settings.
    public struct Options: Hashable, Sendable {
        /// Longest sentence accepted, `$` through checksum, in bytes. NMEA says 82; real
        /// receivers (u-blox, Trimble) exceed it, so the default is 164.
        public var maximumLength: Int
        /// Accept sentences without a `*HH` checksum (NMEA 0183 before 2.0, some GPSDOs).
        /// Off by default, as in gpsd.
        public var acceptMissingChecksum: Bool

        public init(maximumLength: Int = 164, acceptMissingChecksum: Bool = false) {
            self.maximumLength = max(8, maximumLength)
            self.acceptMissingChecksum = acceptMissingChecksum
        }
    }

    /// Counts of what the scanner has seen so far.
    public struct Statistics: Hashable, Sendable {
        /// Sentences reported with a verified checksum (or accepted without one).
        public var accepted = 0
        /// Sentences whose checksum did not match.
        public var badChecksum = 0
        /// Sentences without a checksum (accepted or not, per the options).
        public var missingChecksum = 0
        /// Lines longer than the bound.
        public var overlong = 0
        /// Sentences cut by a non-printable byte.
        public var binaryNoise = 0
        /// Sentences abandoned because another `$` started before their line ended.
        public var truncated = 0
        /// Bytes outside any sentence (noise, comments, blank lines).
        public var skippedBytes = 0
        /// Line feeds seen.
        public var lines = 0
    }

    public let options: Options
    public private(set) var statistics = Statistics()

    private enum State: Sendable { case outside, inSentence, discarding }
    private var state = State.outside
    /// A sentence begun in an earlier chunk, bounded by `options.maximumLength`.
    private var carry: [UInt8] = []
    private var line = 1
    private var lineStartOffset = 0
    private var streamOffset = 0
    private var sentenceLine = 1
    private var sentenceColumn = 1
    private var sentenceOffset = 0
    /// Whether the last byte was CR (so a following LF does not count a second line).
    private var lastWasCR = false

    public init(options: Options = Options()) {
        self.options = options
        carry.reserveCapacity(options.maximumLength)
    }

    /// A scanner without its carry buffer reserved: a stand-in while the real one is lent out.
    init(unreserved options: Options) {
        self.options = options
    }

    /// Scans the next chunk of the stream, calling `body` for every candidate sentence
    /// completed in it.
    /// - Throws: only what `body` throws.
    public mutating func scan<E: Error>(
        _ chunk: UnsafeRawBufferPointer, _ body: (NMEAFrame) throws(E) -> Void
    ) throws(E) {
        let n = chunk.count
        guard n > 0, let base = chunk.baseAddress else { return }
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        let maxLen = options.maximumLength
        var i = 0
        // Start of the current sentence inside this chunk, or -1 when it began in `carry`.
        var start = state == .inSentence ? -1 : 0
        while i < n {
            switch state {
            case .outside:
                // Skip to the next sentence start or line end in one tight loop.
                var j = i
                while j < n {
                    let b = bytes[j]
                    if b == 0x24 || b == 0x21 || b == 0x0A || b == 0x0D { break }
                    j += 1
                }
                if j > i {
                    statistics.skippedBytes += j - i
                    lastWasCR = false
                }
                i = j
                guard i < n else { break }
                let b = bytes[i]
                if b == 0x24 || b == 0x21 {
                    beginSentence(at: i)
                    start = i
                } else {
                    newLine(at: i, cr: b == 0x0D)
                    statistics.skippedBytes += 1
                }
                i += 1
            case .inSentence:
                // Printable bytes up to the length bound, in one tight loop.
                let bound = start >= 0 ? start + maxLen : maxLen - carry.count
                let stop = min(n, bound)
                var j = i
                while j < stop {
                    let b = bytes[j]
                    if b < 0x20 || b > 0x7E || b == 0x24 || b == 0x21 { break }
                    j += 1
                }
                i = j
                guard i < n else { break }
                let b = bytes[i]
                if b == 0x0A || b == 0x0D {
                    try emit(bytes, start: start, end: i, body)
                    state = .outside
                    newLine(at: i, cr: b == 0x0D)
                } else if b == 0x24 || b == 0x21 {
                    // A new start before the line ended: the partial sentence is lost
                    // (reported unless it is a lone `$`, a doubled start).
                    let length = start >= 0 ? i - start : carry.count + i
                    if length > 1 {
                        statistics.truncated += 1
                        try report(bytes, start: start, end: i, status: .truncated, body)
                    }
                    carry.removeAll(keepingCapacity: true)
                    beginSentence(at: i)
                    start = i
                } else if b < 0x20 || b > 0x7E {
                    try report(bytes, start: start, end: i, status: .binaryNoise, body)
                    statistics.binaryNoise += 1
                    carry.removeAll(keepingCapacity: true)
                    state = .outside
                    statistics.skippedBytes += 1
                    lastWasCR = false
                } else {
                    // A printable byte past the bound.
                    try report(bytes, start: start, end: i, status: .overlong, body)
                    statistics.overlong += 1
                    carry.removeAll(keepingCapacity: true)
                    state = .discarding
                    statistics.skippedBytes += 1
                }
                i += 1
            case .discarding:
                let b = bytes[i]
                if b == 0x0A || b == 0x0D {
                    state = .outside
                    newLine(at: i, cr: b == 0x0D)
                } else if b == 0x24 || b == 0x21 {
                    beginSentence(at: i)
                    start = i
                }
                statistics.skippedBytes += 1
                i += 1
            }
        }
        if state == .inSentence {
            if start >= 0 {
                carry.removeAll(keepingCapacity: true)
                carry.append(contentsOf: UnsafeBufferPointer(start: bytes + start, count: n - start))
            } else {
                carry.append(contentsOf: UnsafeBufferPointer(start: bytes, count: n))
            }
        }
        streamOffset += n
    }

    /// Ends the stream: a final sentence without a line end is reported (and accepted when
    /// its checksum is valid).
    /// - Throws: only what `body` throws.
    public mutating func finish<E: Error>(_ body: (NMEAFrame) throws(E) -> Void) throws(E) {
        if state == .inSentence, !carry.isEmpty {
            try withCarry { (s, me) throws(E) in try me.judge(s, body) }
        }
        carry.removeAll(keepingCapacity: true)
        state = .outside
    }

    private mutating func beginSentence(at i: Int) {
        state = .inSentence
        sentenceLine = line
        sentenceOffset = streamOffset + i
        sentenceColumn = sentenceOffset - lineStartOffset + 1
        lastWasCR = false
    }

    private mutating func newLine(at i: Int, cr: Bool) {
        if cr || !lastWasCR { line += 1; statistics.lines += 1 }
        lastWasCR = cr
        lineStartOffset = streamOffset + i + 1
    }

    /// Judges a complete sentence `[start, end)` (start -1 = carried over) and reports it.
    private mutating func emit<E: Error>(
        _ bytes: UnsafePointer<UInt8>, start: Int, end: Int,
        _ body: (NMEAFrame) throws(E) -> Void, fromCarry: Bool = true
    ) throws(E) {
        if start < 0 && fromCarry {
            carry.append(contentsOf: UnsafeBufferPointer(start: bytes, count: end))
            try withCarry { (s, me) throws(E) in try me.judge(s, body) }
        } else {
            try judge(UnsafeRawBufferPointer(start: bytes + max(start, 0), count: end - max(start, 0)), body)
        }
    }

    /// Lends the carry buffer out without copying it (swapped out and back, so the reserved
    /// capacity is kept and nothing is allocated), leaving it empty afterwards.
    private mutating func withCarry<E: Error>(
        _ use: (UnsafeRawBufferPointer, inout NMEAScanner) throws(E) -> Void
    ) throws(E) {
        var local: [UInt8] = []
        swap(&local, &carry)
        defer {
            local.removeAll(keepingCapacity: true)
            swap(&local, &carry)
        }
        var failure: E?
        local.withUnsafeBytes { p in
            do throws(E) { try use(p, &self) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    private mutating func judge<E: Error>(
        _ s: UnsafeRawBufferPointer, _ body: (NMEAFrame) throws(E) -> Void
    ) throws(E) {
        let status = NMEAScanner.checksumStatus(of: s)
        var reported = status
        switch status {
        case .valid: statistics.accepted += 1
        case .badChecksum: statistics.badChecksum += 1
        case .missingChecksum:
            statistics.missingChecksum += 1
            if options.acceptMissingChecksum {
                statistics.accepted += 1
                reported = .valid
            }
        case .overlong, .binaryNoise, .truncated: break
        }
        try body(NMEAFrame(bytes: s, status: reported, line: sentenceLine, column: sentenceColumn, offset: sentenceOffset))
    }

    private mutating func report<E: Error>(
        _ bytes: UnsafePointer<UInt8>, start: Int, end: Int, status: NMEAFrameStatus,
        _ body: (NMEAFrame) throws(E) -> Void
    ) throws(E) {
        if start < 0 {
            carry.append(contentsOf: UnsafeBufferPointer(start: bytes, count: min(end, max(0, options.maximumLength - carry.count))))
            try withCarry { (p, me) throws(E) in
                try body(NMEAFrame(bytes: p, status: status, line: me.sentenceLine, column: me.sentenceColumn, offset: me.sentenceOffset))
            }
        } else {
            try body(NMEAFrame(bytes: UnsafeRawBufferPointer(start: bytes + start, count: end - start), status: status,
                               line: sentenceLine, column: sentenceColumn, offset: sentenceOffset))
        }
    }

    /// The checksum verdict for a sentence `$…*HH` (NMEA 0183 §5.3.1: XOR of the bytes
    /// between `$`/`!` and `*`). A `*` not followed by exactly two hex digits is a bad checksum.
    /// - Complexity: O(length).
    public static func checksumStatus(of s: UnsafeRawBufferPointer) -> NMEAFrameStatus {
        let n = s.count
        guard n >= 2, let base = s.baseAddress else { return .missingChecksum }
        // Fast path for the usual `…*HH` ending: XOR eight bytes at a time, checking each word
        // for a `*` (SWAR zero-byte test on word ^ 0x2A…); any earlier `*` takes the slow path.
        if n >= 4, s[n - 3] == 0x2A {
            let end = n - 3
            var i = 1
            var acc: UInt64 = 0
            var clean = true
            while i + 8 <= end {
                let w = base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                let x = w ^ 0x2A2A_2A2A_2A2A_2A2A
                if (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080 != 0 { clean = false; break }
                acc ^= w
                i += 8
            }
            if clean {
                var sum = UInt8(truncatingIfNeeded: acc ^ acc >> 32 ^ acc >> 16 ^ acc >> 48 ^ acc >> 8 ^ acc >> 24 ^ acc >> 40 ^ acc >> 56)
                while i < end {
                    let b = s[i]
                    if b == 0x2A { clean = false; break }
                    sum ^= b
                    i += 1
                }
                if clean {
                    guard let hi = s[n - 2].hexDigitValue, let lo = s[n - 1].hexDigitValue else { return .badChecksum }
                    return (hi << 4 | lo) == sum ? .valid : .badChecksum
                }
            }
        }
        var star = -1
        var sum: UInt8 = 0
        var i = 1
        while i < n {
            let b = s[i]
            if b == 0x2A { star = i; break }
            sum ^= b
            i += 1
        }
        if star < 0 { return .missingChecksum }
        guard star == n - 3, let hi = s[n - 2].hexDigitValue, let lo = s[n - 1].hexDigitValue else { return .badChecksum }
        return (hi << 4 | lo) == sum ? .valid : .badChecksum
    }

    /// The XOR checksum of a sentence body (the bytes between `$` and `*`).
    public static func checksum(of body: some Sequence<UInt8>) -> UInt8 {
        body.reduce(0, ^)
    }
}
