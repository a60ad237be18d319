import Testing
import GeoBase
import GeoCore

/// `CoordinatePairLine`: `lat1 lon1 lat2 lon2` lines as `geod -I` reads them; values against
/// `Double(String)` (the standard library's correctly rounded reader), errors by code and by
/// the field they name.
struct CoordinatePairLineTests {
    private func result(_ text: String) -> Result<CoordinatePairLine, GeoCoreError> {
        Array(text.utf8).withUnsafeBufferPointer { line in
            Result { () throws(GeoCoreError) in try CoordinatePairLine(parsing: line) }
        }
    }

    private func parse(_ text: String) throws -> CoordinatePairLine { try result(text).get() }

    private func failure(_ text: String) -> GeoCoreError? {
        if case .failure(let error) = result(text) { return error }
        return nil
    }

    @Test func fields_separatedBySpacesAndTabs_matchDoubleParsing() throws {
        let fields = ["52.516272", "13.377722", "-33.8688", "151.20930000000001"]
        let pair = try parse("  \(fields[0])\t\(fields[1])   \(fields[2]) \t \(fields[3])\t")
        #expect(pair.latitude1 == Double(fields[0]))
        #expect(pair.longitude1 == Double(fields[1]))
        #expect(pair.latitude2 == Double(fields[2]))
        #expect(pair.longitude2 == Double(fields[3]))
        let signed = try parse("+1e0 -0 -1E0 540.5")
        #expect(signed.latitude1 == 1 && signed.latitude2 == -1 && signed.longitude2 == 540.5)
        #expect(signed.longitude1 == 0 && signed.longitude1.sign == .minus)
    }

    @Test func latitudesOfExactlyNinetyDegrees_areAccepted() throws {
        let pair = try parse("90 0 -90 0")
        #expect(pair.latitude1 == 90 && pair.latitude2 == -90)
    }

    @Test func badLines_throwTypedErrorsNamingTheField() {
        let empty = failure("")
        #expect(empty?.code == .invalidArgument)
        #expect(empty?.message == "empty line (expected 'lat1 lon1 lat2 lon2')")
        #expect(failure(" \t ")?.message == "empty line (expected 'lat1 lon1 lat2 lon2')")
        #expect(failure("1 2 3")?.message == "expected 4 fields 'lat1 lon1 lat2 lon2', found 3")
        // A fifth field is counted, not read: its text does not matter.
        #expect(failure("1 2 3 4 junk")?.message == "expected 4 fields 'lat1 lon1 lat2 lon2', found 5")
        #expect(failure("1 nan 3 4")?.message == "field 2 'nan' is not a finite decimal number")
        #expect(failure("1 2 1e999 4")?.message == "field 3 '1e999' is not a finite decimal number")
        #expect(failure("1 2 3 " + String(repeating: "x", count: 60))?.message
            == "field 4 '\(String(repeating: "x", count: 40))' is not a finite decimal number")
        let south = failure("-90.5 0 0 0")
        #expect(south?.code == .invalidLatitude)
        #expect(south?.message == "latitude -90.5 in field 1 is outside [-90, 90]")
        #expect(failure("0 0 91 0")?.message == "latitude 91.0 in field 3 is outside [-90, 90]")
    }
}
