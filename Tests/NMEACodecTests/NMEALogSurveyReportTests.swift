import Testing
@testable import NMEACodec

/// `geo nmea check`'s report of a four-line log: two good sentences, one with a wrong checksum,
/// one cut by the next; and the one-line summary a decode gives of what it dropped.
@Test func surveyReport_countsAndListsEveryLine() {
    let log = "$GPGGA,120000.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*67\r\n"
        + "$GPRMC,120000.00,A,4807.038,N,01131.000,E,0.0,0.0,140726,,,A*00\r\n"
        + "$GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1*39\r\n"
        + "$GPGGA,1200$GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1*39\r\n"
    var survey = NMEALogSurvey()
    Array(log.utf8).withUnsafeBytes { survey.scan($0) }
    survey.finish()
    let lines = survey.report.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    #expect(lines.first == "lines: 4" && lines.last == "", "ends in a newline")
    #expect(lines.contains("sentences by type:") && lines.contains("  GSA 2") && lines.contains("  GGA 1"))
    #expect(lines.contains("checksum failures: 1") && lines.contains { $0.hasPrefix("  line 2, column 1: $GPRMC") })
    #expect(lines.contains("malformed lines: 1"))
    let dropped = survey.statistics.droppedLines(missingChecksumDropped: true)
    #expect(dropped == "2 lines dropped (1 bad checksum, 1 cut by the next sentence)")
    #expect(NMEALogSurvey().statistics.droppedLines(missingChecksumDropped: true) == nil)
}
