import OSMImport
import Testing

@Test func osmReadSummary_damageLines_tellWhereTheReadStoppedAndWhatItKept() {
    var summary = OSMReadSummary()
    #expect(summary.damageLines(file: "x.osm.pbf").isEmpty) // the whole file was read
    (summary.nodeCount, summary.wayCount, summary.relationCount) = (3, 2, 1)
    summary.damage = OSMError(.truncated, "file ends inside a blob", offset: 10)
    #expect(summary.damageLines(file: "x.osm.pbf") == [
        "x.osm.pbf: truncated input: file ends inside a blob at byte offset 10",
        "x.osm.pbf: --recover kept 3 nodes, 2 ways, 1 relations before the damage; the rest of the file was not read",
    ])
}
