extension NMEASentence {
    /// Parses one sentence from text such as `$GPGGA,…*hh` (CR/LF optional).
    /// - Throws: `NMEAError` `.badChecksum`, `.missingChecksum` (unless
    ///   `acceptMissingChecksum`) or `.malformedSentence`.
    public init(parsing text: String, acceptMissingChecksum: Bool = false) throws(NMEAError) {
        var s = Array(text.utf8)
        while let last = s.last, last == 0x0A || last == 0x0D { s.removeLast() }
        let result: Result<NMEASentence, NMEAError> = s.withUnsafeBytes { p in
            guard p.count > 0, p[0] == 0x24 || p[0] == 0x21 else {
                return .failure(NMEAError(.malformedSentence, "a sentence starts with $ or !"))
            }
            switch NMEAScanner.checksumStatus(of: p) {
            case .valid: break
            case .missingChecksum where acceptMissingChecksum: break
            case .missingChecksum: return .failure(NMEAError(.missingChecksum, "no *hh checksum"))
            default: return .failure(NMEAError(.badChecksum, "checksum does not match"))
            }
            let frame = NMEAFrame(bytes: p, status: .valid, line: 1, column: 1, offset: 0)
            return Result { () throws(NMEAError) in try NMEASentence(body: frame.body) }
        }
        self = try result.get()
    }

    /// Parses a sentence body (between `$` and `*`).
    /// - Throws: `NMEAError(.malformedSentence)` when the address is unreadable or a typed
    ///   sentence has too few fields.
    public init(body: UnsafeRawBufferPointer) throws(NMEAError) {
        var c = NMEAFieldCursor(body)
        guard let address = NMEAAddress(bytes: c.next()) else {
            throw NMEAError(.malformedSentence, "unreadable address field")
        }
        let fieldCount = NMEAFieldCursor.count(body)
        if address.talker != .proprietary, let typed = NMEASentence.parseTyped(address, &c, fieldCount: fieldCount) {
            self = typed
            return
        }
        var fields: [String] = []
        while !c.exhausted { fields.append(String(decoding: c.next(), as: UTF8.self)) }
        self = .raw(Raw(address: address, fields: fields))
    }

    /// The minimum field counts (address included) below which a typed parse is refused,
    /// as gpsd's `nmea_phrase` table sets them.
    static func minimumFields(_ t: NMEASentenceType) -> Int {
        switch t {
        case .gga: 13
        case .rmc: 8
        case .gll: 7
        case .gsa: 17
        case .gsv: 4
        case .vtg: 5
        case .gns: 13
        case .gst: 8
        case .zda: 4
        case .hdt: 1
        case .gbs: 7
        case .txt: 5
        default: .max
        }
    }

    /// Parses the typed sentences; nil for unknown types or too few fields.
    static func parseTyped(_ a: NMEAAddress, _ c: inout NMEAFieldCursor, fieldCount: Int) -> NMEASentence? {
        guard fieldCount >= minimumFields(a.type) else { return nil }
        let t = a.talker
        switch a.type {
        case .gga: return .gga(parseGGA(t, &c))
        case .rmc: return .rmc(parseRMC(t, &c))
        case .gll: return .gll(parseGLL(t, &c))
        case .gsa: return .gsa(parseGSA(t, &c, fieldCount: fieldCount))
        case .gsv: return parseGSV(t, &c, fieldCount: fieldCount).map { .gsv($0) }
        case .vtg: return .vtg(parseVTG(t, &c))
        case .gns: return .gns(parseGNS(t, &c))
        case .gst: return .gst(parseGST(t, &c))
        case .zda: return .zda(parseZDA(t, &c))
        case .hdt: return .hdt(HDT(talker: t, heading: NMEANumber.double(c.next())))
        case .gbs: return .gbs(parseGBS(t, &c))
        case .txt: return .txt(parseTXT(t, &c))
        default: return nil
        }
    }

    static func parseGGA(_ t: NMEATalker, _ c: inout NMEAFieldCursor) -> GGA {
        let time = NMEATimeOfDay.parse(c.next())
        let lat = c.next(), ns = c.next(), lon = c.next(), ew = c.next()
        let latitude = NMEANumber.latitude(lat, ns)
        let longitude = NMEANumber.longitude(lon, ew)
        let quality = NMEANumber.int(c.next())
        let used = NMEANumber.int(c.next())
        let hdop = NMEANumber.double(c.next())
        let alt = NMEANumber.double(c.next()); c.skip(1)
        let sep = NMEANumber.double(c.next()); c.skip(1)
        let age = NMEANumber.double(c.next())
        let station = NMEANumber.int(c.next())
        return GGA(talker: t, fix: FixData(time: time, latitude: latitude, longitude: longitude, satellitesUsed: used, hdop: hdop,
                                           altitudeMSL: alt, geoidSeparation: sep, dgpsAge: age, dgpsStation: station),
                   quality: quality)
    }

    static func parseRMC(_ t: NMEATalker, _ c: inout NMEAFieldCursor) -> RMC {
        let time = NMEATimeOfDay.parse(c.next())
        let status = NMEANumber.char(c.next())
        let lat = c.next(), ns = c.next(), lon = c.next(), ew = c.next()
        let latitude = NMEANumber.latitude(lat, ns)
        let longitude = NMEANumber.longitude(lon, ew)
        let speed = NMEANumber.double(c.next())
        let track = NMEANumber.double(c.next())
        let date = NMEADate.parseDDMMYY(c.next())
        var variation = NMEANumber.double(c.next())
        let dir = NMEANumber.char(c.next())
        if dir == 0x57, let v = variation { variation = -v } else if dir != 0x45 { variation = nil }
        let faa = NMEANumber.char(c.next())
        let nav = NMEANumber.char(c.next())
        let both = latitude != nil && longitude != nil
        return RMC(talker: t, time: time, status: status, latitude: both ? latitude : nil, longitude: both ? longitude : nil,
                   speedKnots: speed, track: track, date: date, magneticVariation: variation, faaMode: faa,
                   navigationStatus: nav)
    }

    static func parseGLL(_ t: NMEATalker, _ c: inout NMEAFieldCursor) -> GLL {
        let lat = c.next(), ns = c.next(), lon = c.next(), ew = c.next()
        let latitude = NMEANumber.latitude(lat, ns)
        let longitude = NMEANumber.longitude(lon, ew)
        let time = NMEATimeOfDay.parse(c.next())
        let status = NMEANumber.char(c.next())
        let faa = NMEANumber.char(c.next())
        let both = latitude != nil && longitude != nil
        return GLL(talker: t, latitude: both ? latitude : nil, longitude: both ? longitude : nil, time: time,
                   status: status, faaMode: faa)
    }

    static func parseGSA(_ t: NMEATalker, _ c: inout NMEAFieldCursor, fieldCount: Int) -> GSA {
        let selection = NMEANumber.char(c.next())
        let fixType = NMEANumber.int(c.next())
        // Ids fill the fields between the fix type and the three DOPs (12 by the standard).
        let idFields = max(0, fieldCount - 6 - (fieldCount >= 19 ? 1 : 0))
        var ids = NMEASatelliteIDs()
        for _ in 0..<idFields {
            if let id = NMEANumber.int(c.next()), id > 0 { ids.append(id) }
        }
        let pdop = NMEANumber.double(c.next())
        let hdop = NMEANumber.double(c.next())
        let vdop = NMEANumber.double(c.next())
        let system = fieldCount >= 19 ? NMEANumber.int(c.next()) : nil
        return GSA(talker: t, selectionMode: selection, fixType: fixType, satelliteIDs: ids, pdop: pdop,
                   hdop: hdop, vdop: vdop, systemID: system)
    }

    static func parseGSV(_ t: NMEATalker, _ c: inout NMEAFieldCursor, fieldCount: Int) -> GSV? {
        // 4 header fields (address included) + 4 per satellite, + 1 signal id in NMEA 4.11.
        let remainder = fieldCount % 4
        guard remainder == 0 || remainder == 1 else { return nil }
        var g = GSV(talker: t, totalMessages: NMEANumber.int(c.next()), messageNumber: NMEANumber.int(c.next()),
                    satellitesInView: NMEANumber.int(c.next()), signalID: nil)
        let sats = (fieldCount - 4) / 4
        for _ in 0..<sats {
            let id = NMEANumber.int(c.next())
            let el = NMEANumber.double(c.next()), az = NMEANumber.double(c.next()), snr = NMEANumber.double(c.next())
            if let id, id > 0 { g.append(NMEASatelliteInView(id: id, elevation: el, azimuth: az, snr: snr)) }
        }
        if remainder == 1 { g.signalID = NMEANumber.int(c.next()) }
        return g
    }

    static func parseVTG(_ t: NMEATalker, _ c: inout NMEAFieldCursor) -> VTG {
        let trackTrue = NMEANumber.double(c.next()); c.skip(1)
        let trackMag = NMEANumber.double(c.next()); c.skip(1)
        let knots = NMEANumber.double(c.next()); c.skip(1)
        let kmh = NMEANumber.double(c.next()); c.skip(1)
        let faa = NMEANumber.char(c.next())
        return VTG(talker: t, trackTrue: trackTrue, trackMagnetic: trackMag, speedKnots: knots,
                   speedKilometersPerHour: kmh, faaMode: faa)
    }

    static func parseGNS(_ t: NMEATalker, _ c: inout NMEAFieldCursor) -> GNS {
        let time = NMEATimeOfDay.parse(c.next())
        let lat = c.next(), ns = c.next(), lon = c.next(), ew = c.next()
        let latitude = NMEANumber.latitude(lat, ns)
        let longitude = NMEANumber.longitude(lon, ew)
        var modes = NMEASatelliteIDs()
        for b in c.next() { modes.append(Int(b)) }
        let used = NMEANumber.int(c.next())
        let hdop = NMEANumber.double(c.next())
        let alt = NMEANumber.double(c.next())
        let sep = NMEANumber.double(c.next())
        let age = NMEANumber.double(c.next())
        let station = NMEANumber.int(c.next())
        let nav = NMEANumber.char(c.next())
        return GNS(talker: t, fix: FixData(time: time, latitude: latitude, longitude: longitude, satellitesUsed: used, hdop: hdop,
                                           altitudeMSL: alt, geoidSeparation: sep, dgpsAge: age, dgpsStation: station),
                   modeIndicators: modes, navigationStatus: nav)
    }

    static func parseGST(_ t: NMEATalker, _ c: inout NMEAFieldCursor) -> GST {
        GST(talker: t, time: NMEATimeOfDay.parse(c.next()), rangeRMS: NMEANumber.double(c.next()),
            semiMajor: NMEANumber.double(c.next()), semiMinor: NMEANumber.double(c.next()),
            orientation: NMEANumber.double(c.next()), latitudeSigma: NMEANumber.double(c.next()),
            longitudeSigma: NMEANumber.double(c.next()), altitudeSigma: NMEANumber.double(c.next()))
    }

    static func parseZDA(_ t: NMEATalker, _ c: inout NMEAFieldCursor) -> ZDA {
        let time = NMEATimeOfDay.parse(c.next())
        let day = NMEANumber.int(c.next()), month = NMEANumber.int(c.next()), year = NMEANumber.int(c.next())
        var date: NMEADate?
        if let day, let month, let year, (1900...9999).contains(year) {
            date = NMEADate(validYear: year, month: month, day: day)
        }
        return ZDA(talker: t, time: time, date: date, zoneHours: NMEANumber.int(c.next()), zoneMinutes: NMEANumber.int(c.next()))
    }

    static func parseGBS(_ t: NMEATalker, _ c: inout NMEAFieldCursor) -> GBS {
        GBS(talker: t, time: NMEATimeOfDay.parse(c.next()), latitudeError: NMEANumber.double(c.next()),
            longitudeError: NMEANumber.double(c.next()), altitudeError: NMEANumber.double(c.next()),
            failedSatellite: NMEANumber.int(c.next()), probability: NMEANumber.double(c.next()),
            bias: NMEANumber.double(c.next()), biasStandardDeviation: NMEANumber.double(c.next()),
            systemID: NMEANumber.int(c.next()), signalID: NMEANumber.int(c.next()))
    }

    static func parseTXT(_ t: NMEATalker, _ c: inout NMEAFieldCursor) -> TXT {
        let total = NMEANumber.int(c.next()), number = NMEANumber.int(c.next()), id = NMEANumber.int(c.next())
        // The text is the rest of the body (it may itself contain commas).
        var parts: [String] = []
        while !c.exhausted { parts.append(String(decoding: c.next(), as: UTF8.self)) }
        return TXT(talker: t, totalMessages: total, messageNumber: number, identifier: id, text: parts.joined(separator: ","))
    }
}
