import Foundation
import Testing
import GeoTestSupport

/// The inverse fixture of GeoCoreTests (expected values from GeographicLib, see
/// scripts/oracles/geodesic_fixture.py): input columns and expected s12, azi1, azi2.
private func inverseFixture() throws -> [(input: String, expected: [Double])] {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("GeoCoreTests/Fixtures/geodesic-inverse.tsv")
    let text = try String(contentsOf: url, encoding: .utf8)
    return try text.split(separator: "\n").dropFirst(2).map { line in
        let f = line.split(separator: "\t").map(String.init)
        return (f[1...4].joined(separator: " "), try f[5...7].map { try #require(Double($0)) })
    }
}

/// |a − b| modulo 360 degrees.
private func angleError(_ a: Double, _ b: Double) -> Double { abs((a - b).remainder(dividingBy: 360)) }

@Test func batch_matchesGeographicLibFixture_acrossBufferBoundaries() async throws {
    let cases = try inverseFixture()
    // Repeated 20 times (≈ 3.5 MB) so lines straddle the 1 MiB read buffer.
    let repeats = 20
    let input = Array(repeating: cases.map { $0.input + "\n" }.joined(), count: repeats).joined()
    let result = try await GeoProcess.geo(["distance", "--batch"], stdin: input)
    #expect(result.status == 0, "stderr: \(result.stderr)")
    let lines = result.stdout.split(separator: "\n")
    try #require(lines.count == cases.count * repeats)
    var failures: [String] = []
    for (k, line) in lines.enumerated() {
        let expected = cases[k % cases.count].expected
        let got = line.split(separator: " ").compactMap { Double(String($0)) }
        guard got.count == 3 else { failures.append("line \(k + 1): '\(line)'"); continue }
        // Tolerances as in GeodesicTests: 1e-6 m, 1e-9 degrees.
        let azimuthTolerance = 1e-9
        if abs(got[0] - expected[0]) > 1e-6 || angleError(got[1], expected[1]) > azimuthTolerance
            || angleError(got[2], expected[2]) > azimuthTolerance || got[1] < 0 || got[1] >= 360 {
            failures.append("line \(k + 1): \(line) vs \(expected)")
        }
    }
    #expect(failures.isEmpty, "\(failures.count) failures: \(failures.prefix(5))")
}

@Test func batch_acceptsTabsCRLFAndMissingFinalNewline() async throws {
    let result = try await GeoProcess.geo(["distance", "--batch"], stdin: "0\t0 0   1\r\n  +1e0 0 -1E0 0")
    #expect(result.status == 0)
    let lines = result.stdout.split(separator: "\n")
    try #require(lines.count == 2)
    #expect(lines[0] == "111319.49079327357 90.0 90.0") // GeographicLib 2.1: a × 1° on the equator
    let d = try #require(Double(String(lines[1].split(separator: " ")[0])))
    #expect(abs(d - 221148.7771156) < 1e-6) // metres, GeographicLib 2.1 Inverse(1, 0, -1, 0)
}

@Test(arguments: [
    ("1 2 3 4\n5 6 7 8\nabc 0 0 0\n9 9 9 9\n", 3, "field 1 'abc'"),
    ("1 2 3 4\n91 0 0 0\n", 2, "latitude 91.0"),
    ("1 2 3 4\n5 6 7 8\n0 0 -90.5 0\n", 3, "latitude -90.5"),
    ("1 2 3 4\n1 2 3\n", 2, "found 3"),
    ("1 2 3 4\n1 2 3 4 5\n", 2, "found 5"),
    ("1 2 3 4\n\n1 2 3 4\n", 2, "empty line"),
    ("1 2 3 4\n1.2.3 0 0 0\n", 2, "'1.2.3'"),
    ("1 2 3 4\n0 nan 0 0\n", 2, "'nan'"),
    ("1 2 3 4\n0 1e999 0 0\n", 2, "'1e999'"),
    ("1 2 3 4\n0 0 0 --1\n", 2, "field 4"),
])
func batch_badLine_isReportedAndTheOthersAnswered(input: String, badLine: Int, fragment: String) async throws {
    let result = try await GeoProcess.geo(["distance", "--batch"], stdin: input)
    #expect(result.status == 1)
    #expect(result.stderr.contains("line \(badLine):"), "stderr: \(result.stderr)")
    #expect(result.stderr.contains(fragment), "stderr: \(result.stderr)")
    #expect(result.stderr.contains("1 of "), "stderr: \(result.stderr)")
    // Every input line ends with a newline; all but the one bad line are answered.
    let inputLines = input.split(separator: "\n", omittingEmptySubsequences: false).count - 1
    #expect(result.stdout.split(separator: "\n").count == inputLines - 1, "stdout: \(result.stdout)")
}

@Test func single_printsHumanAndExactValues() async throws {
    let result = try await GeoProcess.geo(["distance", "52.516275,13.377704", "-33.9,18.4"])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    #expect(result.stdout.contains("distance:"))
    #expect(result.stdout.contains("initial bearing:"))
    #expect(result.stdout.contains("final bearing:"))
    // The exact distance in parentheses; GeographicLib 2.1 gives 9585825.41249 m.
    let exact = try #require(result.stdout.split(separator: "(").dropFirst().first?.split(separator: " ").first)
    #expect(abs(try #require(Double(String(exact))) - 9_585_825.41249) < 1e-3) // metres
}

@Test func single_rejectsBadPoint() async throws {
    let result = try await GeoProcess.geo(["distance", "95,0", "0,0"])
    #expect(result.status != 0)
    #expect(result.stderr.contains("latitude"))
}
