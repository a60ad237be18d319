import Testing
import NMEACodec

@Test func parse_gga_allFields() throws {
    let s = try NMEASentence(parsing: "$GNGGA,003956.00,4552.65403,S,17030.00668,E,1,12,0.64,14.2,M,1.8,M,,*56")
    guard case .gga(let g) = s else { Issue.record("not GGA: \(s)"); return }
    #expect(g.talker == .multiGNSS)
    #expect(g.fix.time == NMEATimeOfDay(hour: 0, minute: 39, second: 56))
    // 45°52.65403' S = -45.877567167°, 170°30.00668' E = 170.500111333°
    #expect(abs((g.fix.latitude ?? 0) - -45.877567167) < 1e-9)   // degrees
    #expect(abs((g.fix.longitude ?? 0) - 170.500111333) < 1e-9)  // degrees
    #expect(g.quality == 1)
    #expect(g.fix.satellitesUsed == 12)
    #expect(g.fix.hdop == 0.64)
    #expect(g.fix.altitudeMSL == 14.2)
    #expect(g.fix.geoidSeparation == 1.8)
    #expect(g.fix.dgpsAge == nil)
}

@Test func parse_rmc_dateVariationAndModes() throws {
    let s = try NMEASentence(parsing: "$GNRMC,003956.00,A,4552.65403,S,17030.00668,E,0.025,,120419,,,A,V*07")
    guard case .rmc(let r) = s else { Issue.record("not RMC"); return }
    #expect(r.date == NMEADate(year: 2019, month: 4, day: 12))
    #expect(r.status == UInt8(ascii: "A"))
    #expect(r.speedKnots == 0.025)
    #expect(r.track == nil)
    #expect(r.faaMode == UInt8(ascii: "A"))
    #expect(r.navigationStatus == UInt8(ascii: "V"))
    let w = try NMEASentence(parsing: "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A")
    guard case .rmc(let r2) = w else { Issue.record("not RMC"); return }
    #expect(r2.magneticVariation == -3.1)
    #expect(r2.date == NMEADate(year: 1994, month: 3, day: 23))
}

@Test func parse_gsa_nmea411SystemID() throws {
    let s = try NMEASentence(parsing: "$GNGSA,A,3,82,66,81,,,,,,,,,,1.05,0.64,0.83,2*0C")
    guard case .gsa(let g) = s else { Issue.record("not GSA"); return }
    #expect(Array(g.satelliteIDs) == [82, 66, 81])
    #expect(g.systemID == 2)
    #expect(g.fixType == 3)
    #expect(g.pdop == 1.05 && g.hdop == 0.64 && g.vdop == 0.83)
}

@Test func parse_gsv_signalIDAndSatellites() throws {
    let s = try NMEASentence(parsing: "$GAGSV,3,3,09,33,62,034,09,7*40")
    guard case .gsv(let g) = s else { Issue.record("not GSV"); return }
    #expect(g.talker == .galileo)
    #expect(g.signalID == 7)
    #expect(g.satellites == [NMEASatelliteInView(id: 33, elevation: 62, azimuth: 34, snr: 9)])
    #expect(g.totalMessages == 3 && g.messageNumber == 3 && g.satellitesInView == 9)
}

@Test func parse_gnsGstZdaHdtVtgGbsTxt() throws {
    guard case .gns(let n) = try NMEASentence(parsing: "$GNGNS,053229.438,,,,,NNNN,00,,,0.0,,0000*63") else { Issue.record("not GNS"); return }
    #expect(n.fix.latitude == nil && n.fix.satellitesUsed == 0 && n.modeIndicators.count == 4)
    guard case .gst(let g) = try NMEASentence(parsing: "$GNGST,003956.00,235111,,,,2.3,3.5,4.0*46") else { Issue.record("not GST"); return }
    #expect(g.latitudeSigma == 2.3 && g.longitudeSigma == 3.5 && g.altitudeSigma == 4.0 && g.semiMajor == nil)
    guard case .zda(let z) = try NMEASentence(parsing: "$GNZDA,003956.00,12,04,2019,00,00*7C") else { Issue.record("not ZDA"); return }
    #expect(z.date == NMEADate(year: 2019, month: 4, day: 12))
    guard case .vtg(let v) = try NMEASentence(parsing: "$GNVTG,,T,,M,0.025,N,0.045,K,A*3B") else { Issue.record("not VTG"); return }
    #expect(v.trackTrue == nil && v.speedKnots == 0.025 && v.speedKilometersPerHour == 0.045)
    guard case .gbs(let b) = try NMEASentence(parsing: "$GNGBS,003956.00,2.3,3.5,4.0,,,,,,*55") else { Issue.record("not GBS"); return }
    #expect(b.latitudeError == 2.3 && b.failedSatellite == nil)
    let hdtBody = "GPHDT,274.07,T"
    let hdt = "$\(hdtBody)*\(hex(NMEAScanner.checksum(of: Array(hdtBody.utf8))))"
    guard case .hdt(let h) = try NMEASentence(parsing: hdt) else { Issue.record("not HDT"); return }
    #expect(h.heading == 274.07)
    let txtBody = "GPTXT,01,01,02,u-blox ag - www.u-blox.com"
    guard case .txt(let t) = try NMEASentence(parsing: "$\(txtBody)*\(hex(NMEAScanner.checksum(of: Array(txtBody.utf8))))") else { Issue.record("not TXT"); return }
    #expect(t.text == "u-blox ag - www.u-blox.com" && t.identifier == 2)
}

@Test func parse_proprietaryAndUnknown_keptRaw() throws {
    guard case .raw(let r) = try NMEASentence(parsing: "$PGRME,15.0,M,45.0,M,25.0,M*1C") else { Issue.record("not raw"); return }
    #expect(r.address.talker == .proprietary)
    #expect(r.address.description == "PGRME")
    #expect(r.fields == ["15.0", "M", "45.0", "M", "25.0", "M"])
    guard case .raw(let d) = try NMEASentence(parsing: "$INDPT,2.2,0.0*47") else { Issue.record("not raw"); return }
    #expect(d.address.talker == NMEATalker("IN"))
    #expect(d.address.type.description == "DPT")
}

@Test func parse_badChecksumAndMissing_throwTypedErrors() {
    #expect(throws: NMEAError.self) { try NMEASentence(parsing: "$GNZDA,003956.00,12,04,2019,00,00*7D") }
    do {
        _ = try NMEASentence(parsing: "$GPZDA,222449,25,10,2010,+00,00")
        Issue.record("accepted a sentence without checksum")
    } catch {
        #expect(error.code == .missingChecksum)
    }
    #expect((try? NMEASentence(parsing: "$GPZDA,222449,25,10,2010,+00,00", acceptMissingChecksum: true)) != nil)
}

@Test func parse_malformedNumbers_becomeNilFields() throws {
    let body = "GPGGA,12x519,48O7.038,N,01131.000,E,1,08,0.9,abc,M,46.9,M,,"
    let s = try NMEASentence(parsing: "$\(body)*\(hex(NMEAScanner.checksum(of: Array(body.utf8))))")
    guard case .gga(let g) = s else { Issue.record("not GGA"); return }
    #expect(g.fix.time == nil)
    #expect(g.fix.latitude == nil && g.fix.longitude == nil)
    #expect(g.fix.altitudeMSL == nil)
    #expect(g.fix.satellitesUsed == 8)
}

@Test func date_daysSinceEpoch_roundTrips() {
    for days in stride(from: -800_000, through: 800_000, by: 997) {
        #expect(NMEADate(daysSinceEpoch: days).daysSinceEpoch == days)
    }
    #expect(NMEADate(year: 1970, month: 1, day: 1).daysSinceEpoch == 0)
    #expect(NMEADate(year: 2019, month: 4, day: 7).daysSinceEpoch - NMEADate(year: 1999, month: 8, day: 22).daysSinceEpoch == 7168)
}

func hex(_ v: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(v >> 4)], digits[Int(v & 15)]])
}

/// GGA and GNS carry the same fix data: one fix told by both sentences parses into equal
/// `FixData` (48° 07.038′ N = 48.1173°, 11° 31.000′ E = 11.516667°, 8 satellites, HDOP 0.9,
/// 545.4 m above the geoid, which is 46.9 m above the ellipsoid); a latitude without its
/// longitude is no position in either.
@Test func ggaAndGNS_sameFix_sameFixData() throws {
    guard case .gga(let g) = try NMEASentence(parsing: "$GPGGA,123519.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*69"),
          case .gns(let n) = try NMEASentence(parsing: "$GNGNS,123519.00,4807.038,N,01131.000,E,AA,08,0.9,545.4,46.9,,,V*27") else {
        Issue.record("not GGA and GNS"); return
    }
    #expect(g.fix == n.fix)
    #expect(abs((g.fix.latitude ?? 0) - 48.1173) < 1e-9 && abs((g.fix.longitude ?? 0) - (11 + 31.0 / 60)) < 1e-9)
    #expect(g.fix.satellitesUsed == 8 && g.fix.hdop == 0.9 && g.fix.altitudeMSL == 545.4 && g.fix.geoidSeparation == 46.9)
    #expect(g.quality == 1 && n.modeIndicators.count == 2 && n.navigationStatus == UInt8(ascii: "V"))
    guard case .gns(let half) = try NMEASentence(parsing: "$GNGNS,123519.00,4807.038,N,,,AA,08,0.9,545.4,46.9,,,V*4E") else {
        Issue.record("not GNS"); return
    }
    #expect(half.fix.latitude == nil && half.fix.longitude == nil && half.fix.altitudeMSL == 545.4)
}
