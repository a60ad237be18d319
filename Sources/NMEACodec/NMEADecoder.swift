import Platform
import GeoBase
public import GeoCore

/// Turns an NMEA 0183 byte stream into fixes, one per reporting cycle, as gpsd does.
///
/// **Epochs.** A receiver reports each fix as a burst of sentences. GGA, RMC, GLL, GNS and
/// ZDA carry the UTC time of the fix; when that time changes by more than 10 ms a new epoch
/// starts and the previous one is reported (gpsd `driver_nmea0183.c`, "end-of-cycle
/// detector"). Sentences without a time (GSA, GSV, VTG, GST, HDT, GBS) belong to the epoch
/// in progress. Unlike gpsd, which learns the last sentence of a cycle from the first cycle
/// and may report a cycle before all of it arrived, the decoder reports an epoch when the
/// next one begins (or at `finish`), with every field of the epoch merged.
///
/// **Fields.** Within an epoch the last sentence that says something wins, with gpsd's
/// rules: the mode comes from GSA, GGA (3D with altitude and ≥ 4 satellites, no fix under
/// 3), GNS, RMC and GLL (2D, or 3D when an altitude is known or more than three satellites
/// are used); a 3D fix is not downgraded to 2D by a later RMC/GLL while altitude is known.
/// Speed and track come from RMC, else from VTG. The date comes from RMC or ZDA (the last
/// known date, advanced at midnight, for epochs without one); dates before
/// `Options.weekRolloverPivot` are moved forward by 1024-week GPS rollovers. `altitudeHAE` is
/// `altitudeMSL + geoidSeparation`: the separation the GGA/GNS sent, else, as gpsd fills it
/// from its own grid, the one `Options.geoid` gives at the fix (named in `geoidModel`). Climb is the altitude change between
/// consecutive 3D epochs over their time difference. `eph`/`epv` follow `NMEAErrorModel`.
///
/// - Complexity: O(n) in the input bytes; no heap allocation per sentence (satellite lists
///   are copied once per GSV series when `collectSatellites` is on).
public struct NMEADecoder: Sendable {
    /// Decoder settings.
    public struct Options: Hashable, Sendable {
        public var scanner: NMEAScanner.Options
        /// Dates before this one are moved forward by 1024 weeks (GPS week-number rollover,
        /// IS-GPS-200 §20.3.3.3.1.1) until they are not; nil turns the correction off.
        /// Default 2000-01-01: no receiver reports genuine fixes from before 1999-08-22.
        public var weekRolloverPivot: NMEADate?
        /// Keep the satellites of GSV series in each fix's sky.
        public var collectSatellites: Bool
        /// The geoid model that gives a fix's geoid separation, and so its `altitudeHAE`, when
        /// the receiver sent none (many older receivers leave the GGA field empty); nil leaves
        /// both empty then (the default: the decoder reads no files; SystemIO's
        /// `GeoidGridFiles.projEGM96()` gives PROJ's EGM96 grid, as `geo` and the NMEA sources use).
        public var geoid: Geoid?

        /// The options of `geo nmea decode`: sentences without a `*hh` checksum accepted or not,
        /// the week-rollover correction at the default pivot or off, no satellites, `geoid`.
        public init(acceptingMissingChecksum: Bool, correctingWeekRollover: Bool, geoid: Geoid?) {
            self.init(scanner: .init(acceptMissingChecksum: acceptingMissingChecksum),
                      weekRolloverPivot: correctingWeekRollover ? Options().weekRolloverPivot : nil, collectSatellites: false, geoid: geoid)
        }

        public init(scanner: NMEAScanner.Options = .init(),
                    weekRolloverPivot: NMEADate? = NMEADate(year: 2000, month: 1, day: 1),
                    collectSatellites: Bool = true,
                    geoid: Geoid? = nil) {
            self.scanner = scanner
            self.weekRolloverPivot = weekRolloverPivot
            self.collectSatellites = collectSatellites
            self.geoid = geoid
        }
    }

    /// Counts of what the decoder did.
    public struct Statistics: Hashable, Sendable {
        /// Accepted sentences with a typed parser.
        public var typedSentences = 0
        /// Accepted sentences kept raw (proprietary, unknown, or too few fields).
        public var otherSentences = 0
        /// Fixes reported.
        public var fixes = 0
    }

    public let options: Options
    public private(set) var scanner: NMEAScanner
    public private(set) var statistics = Statistics()

    // The epoch in progress.
    var fix = NMEAFix()
    var epochHasData = false
    var epochTime: NMEATimeOfDay?
    var epochDate: NMEADate?
    /// The last known date when the epoch's time arrived (gpsd stamps a report with the
    /// date it knows when the timed sentence is processed).
    var epochInheritedDate: NMEADate?
    var speedFromRMC = false
    var trackFromRMC = false
    var epochSatellitesFromFix: Int?
    var epochUsesDGPS = false

    // State across epochs (gpsd keeps these in its session).
    var knownDate: NMEADate?
    var knownDateTime: NMEATimeOfDay?
    var previousMode: FixMode?
    var previousAltitude: Double?
    var previousTime: Double?
    var hdop: Double?, pdop: Double?, vdop: Double?
    var usedIDs: [UInt32] = []
    var lastWasGSA = false
    var lastWasGSV = false
    var skyAccumulator: [SkySatellite] = []
    var sky: [SkySatellite] = []

    public init(options: Options = Options()) {
        self.options = options
        scanner = NMEAScanner(options: options.scanner)
        usedIDs.reserveCapacity(64)
        skyAccumulator.reserveCapacity(64)
    }

    /// Decodes the next chunk of the stream, calling `onFix` for every epoch it completes.
    /// Rejected sentences (checksum, noise) are counted in `scanner.statistics` and skipped.
    /// When `onFix` throws, the rest of the chunk is still consumed (no further fixes are
    /// reported from it) and the error is rethrown.
    /// - Throws: only what `onFix` throws.
    public mutating func decode<E: Error>(
        _ chunk: UnsafeRawBufferPointer, _ onFix: (NMEAFix) throws(E) -> Void
    ) throws(E) {
        var failure: E?
        decodeChunk(chunk) { fix in
            guard failure == nil else { return }
            do throws(E) { try onFix(fix) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Ends the stream, reporting the epoch in progress.
    /// - Throws: only what `onFix` throws.
    public mutating func finish<E: Error>(_ onFix: (NMEAFix) throws(E) -> Void) throws(E) {
        var failure: E?
        finishStream { fix in
            guard failure == nil else { return }
            do throws(E) { try onFix(fix) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Decodes a whole input at once.
    /// - Complexity: O(n).
    public static func decode(_ bytes: some Collection<UInt8>, options: Options = Options()) -> [NMEAFix] {
        var decoder = NMEADecoder(options: options)
        var fixes: [NMEAFix] = []
        let array = Array(bytes)
        array.withUnsafeBytes { p in decoder.decodeChunk(p) { fixes.append($0) } }
        decoder.finishStream { fixes.append($0) }
        return fixes
    }

    /// Feeds one already-framed, checksum-verified sentence body (between `$` and `*`).
    /// - Throws: only what `onFix` throws.
    public mutating func consume<E: Error>(
        body: UnsafeRawBufferPointer, line: Int = 0, _ onFix: (NMEAFix) throws(E) -> Void
    ) throws(E) {
        var failure: E?
        consumeBody(body, line: line) { fix in
            guard failure == nil else { return }
            do throws(E) { try onFix(fix) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Feeds one parsed sentence.
    /// - Throws: only what `onFix` throws.
    public mutating func consume<E: Error>(
        _ sentence: NMEASentence, line: Int = 0, _ onFix: (NMEAFix) throws(E) -> Void
    ) throws(E) {
        var failure: E?
        let report: (NMEAFix) -> Void = { fix in
            guard failure == nil else { return }
            do throws(E) { try onFix(fix) } catch { failure = error }
        }
        switch sentence {
        case .gga(let g): handleGGA(g, line, report)
        case .rmc(let r): handleRMC(r, line, report)
        case .gll(let g): handleGLL(g, line, report)
        case .gns(let g): handleGNS(g, line, report)
        case .zda(let z): handleZDA(z, line, report)
        case .gsa(let g): handleGSA(g, line)
        case .gsv(let g): handleGSV(g)
        case .vtg(let v): handleVTG(v, line)
        case .gst(let g): handleGST(g, line)
        case .hdt(let h): handleHDT(h, line)
        case .raw(let raw) where raw.address.type == .ths:
            handleOther()
            if let heading = try? NMEAHeading(sentence) { applyHeading(heading.degrees, mode: heading.mode, line) }
        case .gbs, .txt, .raw: handleOther()
        }
        if let failure { throw failure }
    }

    // MARK: - The concrete (non-generic) hot path

    mutating func decodeChunk(_ chunk: UnsafeRawBufferPointer, _ onFix: (NMEAFix) -> Void) {
        // Lend the scanner out (swapped with an unallocated stand-in) so the callback may
        // mutate `self`; swapping moves the carry buffer without copying it.
        var s = NMEAScanner(unreserved: options.scanner)
        swap(&s, &scanner)
        defer { swap(&s, &scanner) }
        s.scan(chunk) { frame in
            guard frame.status.isAccepted else { return }
            self.consumeBody(frame.body, line: frame.line, onFix)
        }
    }

    mutating func finishStream(_ onFix: (NMEAFix) -> Void) {
        var s = NMEAScanner(unreserved: options.scanner)
        swap(&s, &scanner)
        s.finish { frame in
            guard frame.status.isAccepted else { return }
            self.consumeBody(frame.body, line: frame.line, onFix)
        }
        swap(&s, &scanner)
        closeEpoch(onFix)
    }

    /// Parses and applies one body, dispatching on the type without building an `NMEASentence`.
    mutating func consumeBody(_ body: UnsafeRawBufferPointer, line: Int, _ onFix: (NMEAFix) -> Void) {
        var c = NMEAFieldCursor(body)
        guard let address = NMEAAddress(bytes: c.next()), address.talker != .proprietary else {
            handleOther()
            return
        }
        let type = address.type
        if type == .ths {
            handleTHS(degrees: NMEANumber.double(c.next()), mode: c.next(), line)
            return
        }
        let minimum = NMEASentence.minimumFields(type)
        guard minimum != .max, type != .txt else {
            handleOther()
            return
        }
        // Most types read fields in order and need no count; GSA and GSV depend on it.
        let needsCount = type == .gsa || type == .gsv
        let fieldCount = needsCount || minimum > 1 ? NMEAFieldCursor.count(body, atLeast: minimum) : minimum
        guard fieldCount >= minimum else {
            handleOther()
            return
        }
        statistics.typedSentences += 1
        let t = address.talker
        switch type {
        case .gga: handleGGA(NMEASentence.parseGGA(t, &c), line, onFix)
        case .rmc: handleRMC(NMEASentence.parseRMC(t, &c), line, onFix)
        case .gll: handleGLL(NMEASentence.parseGLL(t, &c), line, onFix)
        case .gns: handleGNS(NMEASentence.parseGNS(t, &c), line, onFix)
        case .zda: handleZDA(NMEASentence.parseZDA(t, &c), line, onFix)
        case .gsa: handleGSA(NMEASentence.parseGSA(t, &c, fieldCount: NMEAFieldCursor.count(body)), line)
        case .gsv:
            if let g = NMEASentence.parseGSV(t, &c, fieldCount: NMEAFieldCursor.count(body)) {
                handleGSV(g)
            } else {
                statistics.typedSentences -= 1
                handleOther()
            }
        case .vtg: handleVTG(NMEASentence.parseVTG(t, &c), line)
        case .gst: handleGST(NMEASentence.parseGST(t, &c), line)
        case .hdt: handleHDT(NMEASentence.HDT(talker: t, heading: NMEANumber.double(c.next())), line)
        default: handleOther()
        }
    }

    // MARK: - Per-sentence handlers

    /// A receiver that sends an invalid RMC without time or date (Quectel's
    /// `$GPRMC,,V,,,,,,,,,,N`) may have lost its clock: the last known date is dropped, for the
    /// epoch in progress too, so no time is reported until RMC or ZDA brings a date again
    /// (as gpsd does).
    mutating func forgetDate() {
        knownDate = nil
        knownDateTime = nil
        epochDate = nil
        epochInheritedDate = nil
    }

    mutating func handleOther() {
        statistics.otherSentences += 1
        lastWasGSA = false
        lastWasGSV = false
    }

    mutating func handleGGA(_ g: NMEASentence.GGA, _ line: Int, _ onFix: (NMEAFix) -> Void) {
        startEpoch(at: g.fix.time, line: line, onFix)
        applyGGA(g)
        lastWasGSA = false; lastWasGSV = false
    }

    mutating func handleRMC(_ r: NMEASentence.RMC, _ line: Int, _ onFix: (NMEAFix) -> Void) {
        let valid = r.status == 0x41 || r.status == 0x44
        if !valid && (r.time == nil || r.date == nil) { forgetDate() }
        startEpoch(at: valid ? r.time : nil, line: line, onFix)
        applyRMC(r, valid: valid)
        lastWasGSA = false; lastWasGSV = false
    }

    mutating func handleGLL(_ g: NMEASentence.GLL, _ line: Int, _ onFix: (NMEAFix) -> Void) {
        startEpoch(at: g.time, line: line, onFix)
        applyGLL(g)
        lastWasGSA = false; lastWasGSV = false
    }

    mutating func handleGNS(_ g: NMEASentence.GNS, _ line: Int, _ onFix: (NMEAFix) -> Void) {
        startEpoch(at: g.fix.time, line: line, onFix)
        applyGNS(g)
        lastWasGSA = false; lastWasGSV = false
    }

    mutating func handleZDA(_ z: NMEASentence.ZDA, _ line: Int, _ onFix: (NMEAFix) -> Void) {
        startEpoch(at: z.time, line: line, onFix)
        if let d = z.date {
            epochDate = d
            knownDate = d
            knownDateTime = z.time
        }
        lastWasGSA = false; lastWasGSV = false
    }

    mutating func handleGSA(_ g: NMEASentence.GSA, _ line: Int) {
        touch(line)
        applyGSA(g)
        lastWasGSA = true; lastWasGSV = false
    }

    mutating func handleGSV(_ g: NMEASentence.GSV) {
        applyGSV(g)
        lastWasGSA = false; lastWasGSV = true
    }

    mutating func handleVTG(_ v: NMEASentence.VTG, _ line: Int) {
        touch(line)
        // gpsd needs both the true track and the knots; mode E/N means no data.
        if let track = v.trackTrue, let knots = v.speedKnots, v.faaMode != 0x45, v.faaMode != 0x4E {
            if !trackFromRMC { fix.track = track }
            if !speedFromRMC { fix.speed = knots * 1852 / 3600 }
        }
        lastWasGSA = false; lastWasGSV = false
    }

    mutating func handleGST(_ g: NMEASentence.GST, _ line: Int) {
        touch(line)
        fix.latitudeSigma = g.latitudeSigma
        fix.longitudeSigma = g.longitudeSigma
        fix.altitudeSigma = g.altitudeSigma
        lastWasGSA = false; lastWasGSV = false
    }

    mutating func handleHDT(_ h: NMEASentence.HDT, _ line: Int) {
        touch(line)
        if let heading = h.heading { applyHeading(heading, mode: nil, line) }
        lastWasGSA = false; lastWasGSV = false
    }

    /// THS (true heading and status) has no typed `NMEASentence` (it is kept raw and counted
    /// as such); its heading and mode join the epoch as HDT's heading does. A mode field that
    /// is not one of A, E, M, S, V drops the heading, as `NMEAHeading` refuses it.
    mutating func handleTHS(degrees: Double?, mode field: UnsafeRawBufferPointer, _ line: Int) {
        handleOther()
        guard let degrees, field.count == 1, let mode = NMEAHeading.Mode(rawValue: Character(UnicodeScalar(field[0]))) else { return }
        applyHeading(degrees, mode: mode, line)
    }

    /// Sets the epoch's true heading from HDT or THS. A heading outside 0…360° (a broken
    /// sensor's 720°) is dropped, not wrapped, as every out-of-range field is (360° is 0°).
    mutating func applyHeading(_ degrees: Double, mode: NMEAHeading.Mode?, _ line: Int) {
        touch(line)
        guard degrees >= 0, degrees <= 360 else { return }
        fix.heading = degrees == 360 ? 0 : degrees
        fix.headingMode = mode
    }

    // MARK: - Epochs

    /// Marks the epoch as holding data (so it is reported).
    mutating func touch(_ line: Int) {
        if !epochHasData {
            epochHasData = true
            fix.line = line
        }
    }

    /// Starts a new epoch when `time` differs from the epoch's, reporting the old one.
    mutating func startEpoch(at time: NMEATimeOfDay?, line: Int, _ onFix: (NMEAFix) -> Void) {
        if let time {
            if let current = epochTime {
                if abs(time.nanosecondsOfDay - current.nanosecondsOfDay) > 10_000_000 {
                    closeEpoch(onFix)
                    epochTime = time
                    epochInheritedDate = inheritedDate(at: time)
                }
            } else {
                epochTime = time
                epochInheritedDate = inheritedDate(at: time)
            }
        }
        touch(line)
    }

    mutating func closeEpoch(_ onFix: (NMEAFix) -> Void) {
        defer { resetEpoch() }
        guard epochHasData else { return }
        var f = fix
        // Time: the epoch's own date, else the last known date, advanced past midnight.
        if let tod = epochTime {
            let date = epochDate ?? epochInheritedDate
            if let epochDate, knownDate == nil || epochDate != knownDate {
                knownDate = epochDate
                knownDateTime = tod
            }
            if var d = date {
                if let pivot = options.weekRolloverPivot {
                    while d < pivot { d = NMEADate(daysSinceEpoch: d.daysSinceEpoch + 7 * 1024) }
                }
                f.date = d
                f.timeOfDay = tod
                let seconds = CivilCalendar.seconds(year: d.year, month: d.month, day: d.day,
                                                    hour: tod.hour, minute: tod.minute, second: tod.second)
                f.time = Date(timeIntervalSince1970: Double(seconds) + Double(tod.nanoseconds) / 1e9)
            } else {
                f.timeOfDay = tod
            }
        }
        if f.mode == nil || f.mode == .noFix {
            // A no-fix epoch reports no position, as gpsd's TPV does not.
            if f.mode == .noFix {
                f.latitude = nil; f.longitude = nil; f.altitudeMSL = nil; f.altitudeHAE = nil
                f.speed = nil; f.track = nil
            }
        }
        if f.geoidSeparation == nil, let geoid = options.geoid, let latitude = f.latitude, let longitude = f.longitude,
           let n = geoid.separation(at: Coordinate(uncheckedLatitude: latitude, longitude: Coordinate.normalizedLongitude(longitude))) {
            f.geoidSeparation = n.meters
            f.geoidModel = geoid.name
        }
        if let m = f.altitudeMSL, let sep = f.geoidSeparation { f.altitudeHAE = m + sep }
        // Climb between consecutive 3D epochs.
        let altitude = f.altitudeHAE ?? f.altitudeMSL
        let seconds = f.time?.timeIntervalSince1970
        if f.mode == .threeDimensional, previousMode == .threeDimensional, let altitude, let previousAltitude,
           let seconds, let previousTime, seconds > previousTime {
            f.climb = (altitude - previousAltitude) / (seconds - previousTime)
        }
        // Sky and error model.
        f.sky.hdop = hdop
        f.sky.pdop = pdop
        f.sky.vdop = vdop
        f.sky.satellitesUsed = epochSatellitesFromFix ?? (usedIDs.isEmpty ? nil : usedIDs.count)
        if options.collectSatellites, !sky.isEmpty {
            f.sky.satellites = sky
            for i in f.sky.satellites.indices {
                let s = f.sky.satellites[i]
                f.sky.satellites[i].used = usedIDs.contains(NMEADecoder.key(s.system, s.id))
            }
        }
        if let mode = f.mode, mode >= .twoDimensional {
            let dgps = epochUsesDGPS
            if let hdop {
                f.eph = hdop * (dgps ? NMEAErrorModel.positionUEREDifferential : NMEAErrorModel.positionUERE)
            }
            if mode == .threeDimensional, let vdop {
                f.epv = vdop * (dgps ? NMEAErrorModel.verticalUEREDifferential : NMEAErrorModel.verticalUERE)
            }
        }
        previousMode = f.mode
        if let altitude { previousAltitude = altitude } else if f.mode != .threeDimensional { previousAltitude = nil }
        if let seconds { previousTime = seconds }
        statistics.fixes += 1
        onFix(f)
    }

    /// The last known date for an epoch at `tod`, advanced by a day when the time of day went
    /// back by more than 12 hours since the date was learnt (midnight passed).
    mutating func inheritedDate(at tod: NMEATimeOfDay) -> NMEADate? {
        guard var d = knownDate else { return nil }
        if let dt = knownDateTime, tod.nanosecondsOfDay + 43_200_000_000_000 < dt.nanosecondsOfDay {
            d = NMEADate(daysSinceEpoch: d.daysSinceEpoch + 1)
            knownDate = d
            knownDateTime = tod
        }
        return d
    }

    mutating func resetEpoch() {
        fix = NMEAFix()
        epochHasData = false
        epochTime = nil
        epochDate = nil
        epochInheritedDate = nil
        speedFromRMC = false
        trackFromRMC = false
        epochSatellitesFromFix = nil
        epochUsesDGPS = false
    }

    /// Whether an altitude is known in this epoch or the previous one (gpsd's test before
    /// promoting an RMC/GLL fix to 3D).
    var altitudeKnown: Bool { fix.altitudeMSL != nil || previousAltitude != nil }

    /// gpsd's last step of every sentence: a 3D fix holding an altitude is not downgraded.
    mutating func setMode(_ mode: FixMode) {
        if mode == .twoDimensional, fix.mode == .threeDimensional || (fix.mode == nil && previousMode == .threeDimensional),
           altitudeKnown {
            fix.mode = .threeDimensional
        } else {
            fix.mode = mode
        }
    }
}
