import GeoBase
import GeoCore

/// The decoder's per-sentence updates of the epoch being assembled (GGA, RMC, GLL, GSA, GSV, …).
extension NMEADecoder {
    mutating func applyGGA(_ g: NMEASentence.GGA) {
        if let q = g.quality {
            fix.quality = FixQuality(rawValue: q)
            epochUsesDGPS = q == 2
        }
        let sats = g.fix.satellitesUsed ?? 0
        if let lat = g.fix.latitude, let lon = g.fix.longitude {
            fix.latitude = lat
            fix.longitude = lon
            var mode = FixMode.twoDimensional
            fix.geoidSeparation = g.fix.geoidSeparation
            if let alt = g.fix.altitudeMSL {
                fix.altitudeMSL = alt
                if sats >= 4 { mode = .threeDimensional }
            }
            if sats < 3 { mode = .noFix }
            setMode(mode)
        } else {
            setMode(.noFix)
        }
        if let h = g.fix.hdop, h < 99 { hdop = h }
        if let n = g.fix.satellitesUsed { epochSatellitesFromFix = n }
    }

    mutating func applyRMC(_ r: NMEASentence.RMC, valid: Bool) {
        guard valid else {
            setMode(.noFix)
            return
        }
        if r.time != nil, let d = r.date { epochDate = d }
        if r.status == 0x44 || r.faaMode == 0x44 { epochUsesDGPS = true }
        if let lat = r.latitude, let lon = r.longitude {
            fix.latitude = lat
            fix.longitude = lon
            var mode = FixMode.twoDimensional
            if previousMode == .threeDimensional || usedIDs.count > 3 || altitudeKnown { mode = .threeDimensional }
            setMode(mode)
        } else {
            setMode(.noFix)
        }
        if let s = r.speedKnots {
            fix.speed = s * 1852 / 3600
            speedFromRMC = true
        }
        if let t = r.track {
            fix.track = t
            trackFromRMC = true
        }
        if let v = r.magneticVariation, abs(v) > 0.09 { fix.magneticVariation = v }
    }

    mutating func applyGLL(_ g: NMEASentence.GLL) {
        guard g.status == 0x41, g.faaMode != 0x4E, let lat = g.latitude, let lon = g.longitude else {
            setMode(.noFix)
            return
        }
        fix.latitude = lat
        fix.longitude = lon
        var mode = FixMode.twoDimensional
        if altitudeKnown || usedIDs.count > 3 { mode = .threeDimensional }
        setMode(mode)
    }

    mutating func applyGNS(_ g: NMEASentence.GNS) {
        let first = g.modeIndicators.first
        guard let first, first != Int(UInt8(ascii: "N")) else {
            setMode(.noFix)
            return
        }
        if g.navigationStatus == 0x55 || g.navigationStatus == 0x56 { return }
        if let lat = g.fix.latitude, let lon = g.fix.longitude {
            fix.latitude = lat
            fix.longitude = lon
            var mode = FixMode.twoDimensional
            if let alt = g.fix.altitudeMSL {
                fix.altitudeMSL = alt
                if (g.fix.satellitesUsed ?? 0) > 3 { mode = .threeDimensional }
                if let sep = g.fix.geoidSeparation { fix.geoidSeparation = sep }
            }
            setMode(mode)
        } else {
            setMode(.noFix)
        }
        if let h = g.fix.hdop { hdop = h }
        if first == Int(UInt8(ascii: "D")) { epochUsesDGPS = true }
    }

    mutating func applyGSA(_ g: NMEASentence.GSA) {
        if let t = g.fixType, g.selectionMode != 0x45, let mode = FixMode(rawValue: t) { setMode(mode) }
        if let p = g.pdop, p < 99 { pdop = p }
        if let h = g.hdop, h < 99 { hdop = h }
        if let v = g.vdop, v < 99 { vdop = v }
        // Consecutive GSAs (one per constellation) accumulate; a new series replaces.
        if !lastWasGSA { usedIDs.removeAll(keepingCapacity: true) }
        let system = g.systemID.flatMap(GNSSSystem.init(rawValue:)) ?? g.talker.system
        for id in g.satelliteIDs {
            usedIDs.append(NMEADecoder.key(system ?? NMEADecoder.system(ofID: id), id))
        }
    }

    mutating func applyGSV(_ g: NMEASentence.GSV) {
        guard options.collectSatellites else { return }
        if g.messageNumber == 1 && !lastWasGSV { skyAccumulator.removeAll(keepingCapacity: true) }
        for i in 0..<g.count {
            let s = g[i]
            let system = g.talker.system ?? NMEADecoder.system(ofID: s.id)
            skyAccumulator.append(SkySatellite(system: system, id: s.id, signalID: g.signalID,
                                               elevation: s.elevation, azimuth: s.azimuth, snr: s.snr))
        }
        if let n = g.messageNumber, let total = g.totalMessages, n >= total {
            sky = skyAccumulator
        }
    }

    /// The constellation an NMEA satellite id implies (gpsd `nmeaid_to_prn` ranges).
    static func system(ofID id: Int) -> GNSSSystem? {
        switch id {
        case 1...32: .gps
        case 65...96: .glonass
        case 193...200: .qzss
        case 201...264, 401...437: .beidou
        case 301...336: .galileo
        default: nil
        }
    }

    static func key(_ system: GNSSSystem?, _ id: Int) -> UInt32 {
        UInt32(system?.rawValue ?? 0) << 16 | UInt32(truncatingIfNeeded: id & 0xFFFF)
    }
}
