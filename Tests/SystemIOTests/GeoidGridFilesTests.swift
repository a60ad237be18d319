import Foundation
import GeoCore
import Testing
import SystemIO
import GeoTestSupport
import GeoBase

/// PROJ's EGM96 geoid height at 28.25° N, 16.75° W (Tenerife, steep geoid): `cct +proj=vgridshift +grids=egm96_15.gtx +multiplier=1`, PROJ 9.1.1 (a row of
/// GeoCoreTests/Fixtures/geoid-egm96.tsv).
private let tenerife = Coordinate(uncheckedLatitude: 28.25, longitude: -16.75)
private let tenerifeN = 50.475124 // metres

/// A temporary folder holding `files`, for the body's duration.
private func withFolder(holding files: [String: [UInt8]], _ body: (String) throws -> Void) throws {
    try withTemporaryDirectory { dir in
        for (name, bytes) in files { try Data(bytes).write(to: dir.appendingPathComponent(name)) }
        try body(dir.path)
    }
}

@Test func geoidGridFiles_projEGM96_isPROJsGrid() throws {
    // Debian proj-data (brought by proj-bin, which scripts/setup.sh installs) is in /usr/share/proj.
    let geoid = try #require(try GeoidGridFiles.projEGM96(environment: { _ in nil }), "egm96_15.gtx not found")
    #expect(geoid.rows == 721 && geoid.columns == 1440)
    #expect(geoid.name == "EGM96 (15' grid, /usr/share/proj/egm96_15.gtx)")
    #expect(abs(try #require(geoid.separation(at: tenerife)).meters - tenerifeN) < 1e-5) // metres
}

@Test func geoidGridFiles_projDataSetAndEmpty_findsNoGrid() throws {
    try withFolder(holding: [:]) { empty throws in
        let env: (String) -> String? = { $0 == "PROJ_DATA" ? empty : nil }
        #expect(GeoidGridFiles.projDataFolders(environment: env) == [empty])
        #expect(try GeoidGridFiles.projEGM96(environment: env) == nil)
    }
}

@Test func geoidGridFiles_brokenGrid_throwsWithItsPath() throws {
    try withFolder(holding: [GeoidGridFiles.egm96FileName: Array("not a grid".utf8)]) { dir in
        #expect {
            try GeoidGridFiles.projEGM96(environment: { $0 == "PROJ_LIB" ? "/nonexistent:" + dir : nil })
        } throws: { error in
            (error as? GeoCoreError)?.code == .invalidGeoidGrid && "\(error)".contains(dir + "/egm96_15.gtx")
        }
    }
}
