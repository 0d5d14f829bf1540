import CloudSyncTesting
import Foundation
import Testing
import ZIPFoundation

/// Issue 10 through the binary: `convert --kind routes|ecg`, GeoJSON as RFC 7946 says, JSON Lines
/// read back by Python, convert → import → export giving the same lines. (A store of an older schema
/// upgraded in place: CloudSyncKindsTests.)
@Suite struct ArchiveKindsCLITests {
    static let gpx = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="Apple Health Export" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
        <trkpt lon="-73.985100" lat="40.758900"><ele>10.2</ele><time>2024-11-02T23:00:05Z</time><extensions><speed>2.8</speed><course>180</course><hAcc>4</hAcc><vAcc>3</vAcc></extensions></trkpt>
        <trkpt lon="-73.985200" lat="40.759000"><ele>10.4</ele><time>2024-11-02T23:00:06Z</time><extensions><speed>2.9</speed><course>181</course><hAcc>4</hAcc><vAcc>3</vAcc></extensions></trkpt>
        </trkseg></trk></gpx>
        """
    static let ecg = "Name,Zoë\nRecorded Date,2024-11-02 08:00:00 +0100\nClassification,Sinus Rhythm\nSymptoms,\n"
        + "Software Version,2\nDevice,\"Watch7,2\"\nSample Rate,512 hertz\n\n\nLead,Lead I\nUnit,µV\n\n-12.5\n3.25\n100\n"

    /// The sample's export.xml with a GPX route and an ECG beside it, as Apple lays them out.
    func archive() throws -> String {
        let xml = try Data(contentsOf: URL(fileURLWithPath: Paths.sampleXML))
        return try ZipFixtures.make([("apple_health_export/export.xml", xml),
                                     ("apple_health_export/workout-routes/route_2024-11-02_6.30pm.gpx", Data(Self.gpx.utf8)),
                                     ("apple_health_export/electrocardiograms/ecg_2024-11-02.csv", Data(Self.ecg.utf8))],
                                    in: try makeTemporaryDirectory())
    }

    /// Python's json module reads every line back (an independent JSON parser).
    func python(_ script: String, stdin: Data) throws -> String {
        let result = try CLI.run(["python3", "-c", script], stdinBytes: stdin, tool: "/usr/bin/env")
        #expect(result.status == 0, "\(result.stderr)")
        return String(decoding: result.stdout, as: UTF8.self)
    }

    @Test func routesAsJSONLinesAndGeoJSONAndECGsAsJSONLines() throws {
        let input = try archive()
        let routes = try CLI.run(["convert", input, "--kind", "routes"])
        #expect(routes.status == 0, "\(routes.stderr)")
        #expect(routes.stderr.contains("2 routes (3 points)"))
        let keys = try python("""
            import json, sys
            rows = [json.loads(line) for line in sys.stdin]
            print(len(rows)); print(",".join(rows[0].keys()))
            gpx = [r for r in rows if r["file"]]
            print(gpx[0]["workoutType"], gpx[0]["time"], gpx[-1]["latitude"], gpx[-1]["longitude"], gpx[-1]["speed"])
            """, stdin: routes.stdout)
        #expect(keys == """
            3
            workoutType,workoutStart,file,time,latitude,longitude,elevation,speed,course,horizontalAccuracy,verticalAccuracy
            HKWorkoutActivityTypeRunning 2024-11-02T23:00:05Z 40.759 -73.9852 2.9

            """)

        let geojson = try CLI.run(["convert", input, "--kind", "routes", "--format", "geojson"])
        #expect(geojson.status == 0)
        // RFC 7946: a FeatureCollection of Features; a LineString's coordinates are positions of two
        // or three numbers, longitude first, latitude second, within range.
        let collection = try #require(try JSONSerialization.jsonObject(with: geojson.stdout) as? [String: Any])
        #expect(collection["type"] as? String == "FeatureCollection")
        let features = try #require(collection["features"] as? [[String: Any]])
        #expect(features.count == 2)
        for feature in features {
            #expect(feature["type"] as? String == "Feature")
            let geometry = try #require(feature["geometry"] as? [String: Any])
            #expect(["LineString", "Point"].contains(geometry["type"] as? String ?? ""))
            let positions = geometry["type"] as? String == "Point" ? [geometry["coordinates"] as? [Double] ?? []]
                : (geometry["coordinates"] as? [[Double]] ?? [])
            for position in positions {
                #expect((2...3).contains(position.count))
                #expect((-180...180).contains(position[0]) && (-90...90).contains(position[1]))
            }
            #expect(feature["properties"] is [String: Any])
        }
        let line = try #require(features.first { ($0["properties"] as? [String: Any])?["file"] is String })
        #expect((line["geometry"] as? [String: Any])?["coordinates"] as? [[Double]] == [[-73.9851, 40.7589, 10.2], [-73.9852, 40.759, 10.4]])
        #expect((line["properties"] as? [String: Any])?["points"] as? Int == 2)

        let ecg = try CLI.run(["convert", input, "--kind", "ecg"])
        #expect(ecg.status == 0)
        let read = try python("""
            import json, sys
            for line in sys.stdin:
                r = json.loads(line); print(r["recordedAt"], r["sampleRateHz"], r["samples"], r["device"], r["unit"])
            """, stdin: ecg.stdout)
        #expect(read == "2024-11-02T07:00:00Z 512 [-12.5, 3.25, 100] Watch7,2 µV\n")
        // Metrics are unchanged by the other kinds: the default output is today's, byte for byte.
        #expect(try CLI.run(["convert", input]).stdout == CLI.run(["convert", Paths.sampleZip]).stdout)
    }

    @Test(arguments: [["--kind", "routes"], ["--kind", "routes", "--format", "geojson"], ["--kind", "ecg"], ["--kind", "beats"],
                      ["--kind", "correlations"], []])
    func convertImportExportGiveTheSameLines(_ kind: [String]) throws {
        let input = try archive()
        let store = try makeTemporaryDirectory().appendingPathComponent("staging.sqlite").path
        let converted = try CLI.run(["convert", input] + kind)
        let imported = try CLI.run(["import", input, "--store", store])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stderr.contains("2 routes new") && imported.stderr.contains("1 ECG new"))
        let again = try CLI.run(["import", input, "--store", store])
        #expect(again.stderr.contains("0 routes new (2 already there)") && again.stderr.contains("0 ECGs new (1 already there)"))
        let exported = try CLI.run(["export", "--store", store] + kind)
        #expect(exported.status == 0, "\(exported.stderr)")
        if kind.isEmpty {
            // The store orders metrics by startDate; compare as sets of lines.
            #expect(Set(converted.lines) == Set(exported.lines))
        } else {
            #expect(converted.stdout == exported.stdout)
        }
        let status = try CLI.run(["status", "--store", store, "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: status.stdout) as? [String: Any])
        let records = json["records"] as? [String: [String: Int]]
        #expect(records?["routes"] == ["records": 2, "parts": 3] && records?["ecg"]?["records"] == 1)
        #expect(records?["beats"]?["records"] == 1 && records?["correlations"]?["records"] == 1)
    }

    /// From a pipe, the route and the ECG that come before export.xml wait in a temporary file, made
    /// in `$TMPDIR` as a user who sends them to a larger disk expects: a folder that is not there is
    /// said by its name; one that is takes them, and nothing is left in it.
    @Test func filesKeptAsideGoWhereTMPDIRSays() throws {
        let folder = try makeTemporaryDirectory()
        let input = try ZipFixtures.make([("apple_health_export/workout-routes/route_2024-11-02_6.30pm.gpx", Data(Self.gpx.utf8)),
                                          ("apple_health_export/electrocardiograms/ecg_2024-11-02.csv", Data(Self.ecg.utf8)),
                                          ("apple_health_export/export.xml", try Data(contentsOf: URL(fileURLWithPath: Paths.sampleXML)))],
                                         in: folder)
        let piped = try Data(contentsOf: URL(fileURLWithPath: input))
        let missing = folder.appendingPathComponent("no-such-folder").path
        let refused = try CLI.run(["convert", "-", "--kind", "routes"], stdinBytes: piped, environment: ["TMPDIR": missing])
        #expect(refused.status == 74, "\(refused.stderr)")
        #expect(refused.stderr.contains("the temporary file in \(missing)"), "\(refused.stderr)")

        let spills = folder.appendingPathComponent("spills")
        try FileManager.default.createDirectory(at: spills, withIntermediateDirectories: false)
        let converted = try CLI.run(["convert", "-", "--kind", "routes"], stdinBytes: piped, environment: ["TMPDIR": spills.path])
        #expect(converted.status == 0 && converted.stderr.contains("2 routes (3 points)"), "\(converted.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: spills.path).isEmpty)
    }

    @Test func inspectCountsEveryKindAndNamesWhatItDidNotRecognise() throws {
        let input = try archive()
        let zip = try Archive(url: URL(fileURLWithPath: input), accessMode: .update)
        let junk = Data("not a health file".utf8)
        try zip.addEntry(with: "apple_health_export/notes.txt", type: .file, uncompressedSize: Int64(junk.count)) { position, size in
            junk.subdata(in: Int(position)..<Int(position) + size)
        }
        let result = try CLI.run(["inspect", input, "--json"])
        #expect(result.status == 0)
        let report = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let records = report["records"] as? [String: [String: Int]]
        #expect(records?["routes"] == ["records": 2, "parts": 3])
        #expect(records?["ecg"] == ["records": 1, "parts": 3])
        #expect(records?["beats"] == ["records": 1, "parts": 3] && records?["correlations"]?["records"] == 1)
        #expect(report["unrecognisedEntries"] as? [String] == ["apple_health_export/notes.txt"])
    }
}
