import Testing
import NMEACodec

/// `geo nmea check`'s survey: accepted sentences counted by address, type and talker, refused
/// lines listed with their place, the same whatever the chunking.
private let log = """
    $GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47
    $GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A
    $PGRME,15.0,M,45.0,M,25.0,M*1C
    $GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*48
    $GNGGA,123520,4807.038,N,01131.000,E,1,08,0.9*68
    $GPGGA,123521,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,

    """

private func survey(_ text: String, chunk: Int) -> NMEALogSurvey {
    var survey = NMEALogSurvey()
    let bytes = Array(text.utf8)
    var start = 0
    while start < bytes.count {
        let end = min(start + chunk, bytes.count)
        bytes[start..<end].withUnsafeBytes { survey.scan($0) }
        start = end
    }
    survey.finish()
    return survey
}

@Test func survey_countsAcceptedSentences_andListsEachRefusedLineWithItsPlace() {
    let s = survey(log, chunk: 1 << 16)
    #expect(s.statistics.lines == 6)
    #expect(s.byAddress == ["GPGGA": 1, "GPRMC": 1, "PGRME": 1, "GNGGA": 1])
    #expect(s.byType == ["GGA": 2, "RMC": 1, "PGRME": 1])
    #expect(s.byTalker["GP"] == 2 && s.byTalker["GN"] == 1)
    #expect(s.checksumFailures.count == 1)
    #expect(s.checksumFailures.first?.hasPrefix("line 4, column 1: $GPGGA,123519") == true)
    // The GNGGA with 9 fields and the line without a checksum.
    #expect(s.malformed.count == 2)
    #expect(s.malformed.contains { $0.hasPrefix("line 5, column 1: wrong field count for GGA") })
    #expect(s.malformed.contains { $0.hasPrefix("line 6, column 1: ") })
}

@Test func survey_isTheSameWhateverTheChunking() {
    let whole = survey(log, chunk: 1 << 16)
    for chunk in [1, 7, 64] {
        let pieces = survey(log, chunk: chunk)
        #expect(pieces.byAddress == whole.byAddress && pieces.checksumFailures == whole.checksumFailures
                    && pieces.malformed == whole.malformed && pieces.statistics == whole.statistics, "chunk \(chunk)")
    }
}
