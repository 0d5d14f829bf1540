import CloudSyncExport
@testable import CloudSyncKinds
import CloudSyncModel
import CloudSyncInputs
@testable import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

/// Every kind of the registry on the sample's real bytes, through the library: read by the archive
/// converter, kept in a real SQLite store once, and given back unchanged, as JSON Lines (the kinds
/// kept as their JSON line: byte for byte, as stored), as records, and as CSV.
@Suite struct StoredKindsTests {
    @Test(arguments: RecordKinds.names)
    func eachKindIsStoredOnceAndComesBackAsConverted(_ name: String) throws {
        let kind = try #require(RecordKinds.named(name))
        try roundTrip(kind)
    }

    private func roundTrip<Kind: ArchiveRecordKind>(_ kind: Kind.Type) throws {
        let expected = try #require(SampleRecords.byKind[Kind.name])
        let input = SampleRecords.input(of: Kind.name)
        let fixture = try StoreFixture()
        let converted = try convertedLines(kind, input, in: fixture.directory)
        let read = CollectingSink()
        let count = try convert(kind, input, into: read)
        #expect(count.records == expected.records, "\(Kind.name)")
        #expect(jsonLines(read.records(kind), as: kind) == converted, "\(Kind.name): the lines are the records as read")

        let store = try fixture.open()
        let first = try importSample(input, into: store)
        #expect(first.records[Kind.name]?.new == expected.records, "\(Kind.name)")
        let again = try importSample(input, into: store)
        #expect(again.records[Kind.name]?.new == 0 && again.records[Kind.name]?.already == expected.records, "\(Kind.name)")
        // Counted as inspect counts them: records, and their parts (points, samples, beats, members).
        let counted = try #require(try StatusQuery(store).status().records[Kind.name])
        #expect(counted.records == count.records, "\(Kind.name)")
        #expect(counted.parts == count.parts, "\(Kind.name)")

        // JSON Lines: what convert wrote, byte for byte.
        #expect(try exportedLines(kind, from: store, in: fixture.directory) == converted, "\(Kind.name)")
        // As records (a sink that takes records, not lines): read back from the tables, the same records.
        let records = CollectingSink()
        #expect(try ExportQuery(store).records(kind, to: records) == expected.records)
        #expect(records.finished)
        #expect(jsonLines(records.records(kind), as: kind) == converted, "\(Kind.name): read back from the store")
        // CSV: the kind's header, then the same rows from the store as from the export.
        let csvConverted = try written(in: fixture.directory) { try convert(kind, input, into: RecordCSVSink(output: $0, columns: Kind.csvColumns)) }
        let csvExported = try written(in: fixture.directory) {
            try ExportQuery(store).records(kind, to: RecordCSVSink(output: $0, columns: Kind.csvColumns))
        }
        #expect(csvExported == csvConverted, "\(Kind.name)")
        let rows = String(decoding: csvConverted, as: UTF8.self).components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(rows.first == Kind.csvColumns.joined(separator: ","), "\(Kind.name)")
        #expect(rows.count - 1 == expected.csvRows, "\(Kind.name)")

        // A kind kept as its JSON line has each record's line in its table, as convert wrote it.
        if let stored = Kind.storedLines {
            let select = try store.database.prepare("SELECT line FROM \(stored.table) ORDER BY id")
            var kept: [String] = []
            while try select.step() { kept.append(select.text(0) ?? "") }
            #expect(kept == lines(converted), "\(Kind.name)")
        }
    }

    /// Correlations, audiograms, vision prescriptions and clinical records read back from their stored
    /// line are the records read from the export: values, members and points in order, metadata in its order.
    @Test func theKindsKeptAsLinesReadBackAsTheSameRecords() throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        try store.importExport(Paths.sampleZip)
        func check<Kind: ArchiveRecordKind>(_ kind: Kind.Type) throws -> [Kind.Record] where Kind.Record: Equatable {
            let read = CollectingSink(), stored = CollectingSink()
            try convert(kind, Paths.sampleZip, into: read)
            try ExportQuery(store).records(kind, to: stored)
            #expect(!read.records(kind).isEmpty)
            #expect(stored.records(kind) == read.records(kind), "\(Kind.name)")
            return stored.records(kind)
        }
        let correlation = try #require(try check(CorrelationKind.self).first)
        #expect(correlation.members.count == 2)
        let audiogram = try #require(try check(AudiogramKind.self).first)
        #expect(audiogram.metadata.map(\.key).last == "HKWasUserEntered")
        let prescription = try #require(try check(VisionPrescriptionKind.self).first)
        #expect(prescription.rightEye?.sphere == VisionPrescription.Measure(value: -1.25, unit: "D"))
        _ = try check(ClinicalKind.self)
    }

    /// Two correlations alike but for their members are two (the key holds the members); the same
    /// export again adds neither; the members' order and the metadata's order come back as written.
    @Test func correlationsAreKeyedByTheirMembers() throws {
        func pressure(_ systolic: Int, _ diastolic: Int) -> String {
            """
             <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Omron" sourceVersion="7.1" startDate="2024-11-02 08:30:00 -0500" endDate="2024-11-02 08:30:00 -0500">
              <MetadataEntry key="HKWasUserEntered" value="1"/>
              <MetadataEntry key="Arm" value="left"/>
              <Record type="HKQuantityTypeIdentifierBloodPressureSystolic" sourceName="Omron" unit="mmHg" startDate="2024-11-02 08:30:00 -0500" endDate="2024-11-02 08:30:00 -0500" value="\(systolic)"/>
              <Record type="HKQuantityTypeIdentifierBloodPressureDiastolic" sourceName="Omron" unit="mmHg" startDate="2024-11-02 08:30:00 -0500" endDate="2024-11-02 08:30:00 -0500" value="\(diastolic)"/>
             </Correlation>

            """
        }
        let fixture = try StoreFixture()
        let input = try fixture.file("<?xml version=\"1.0\"?>\n<HealthData locale=\"en_US\">\n" + pressure(121, 79) + pressure(118, 79) + "</HealthData>\n")
        let store = try fixture.open(configuration: .init(kinds: [CorrelationKind.self]))
        #expect(try store.importExport(input).stored.records["correlations"]?.new == 2)
        #expect(try store.importExport(input).stored.records["correlations"]?.already == 2)
        #expect(try store.database.scalarInt("SELECT count(*) FROM correlation") == 2)
        let back = CollectingSink()
        try ExportQuery(store).records(CorrelationKind.self, to: back)
        #expect(back.correlations.map { $0.members.map(\.value) } == [[121, 79], [118, 79]])
        #expect(back.correlations.map { $0.members.map(\.type) }.allSatisfy { $0 == ["HKQuantityTypeIdentifierBloodPressureSystolic", "HKQuantityTypeIdentifierBloodPressureDiastolic"] })
        #expect(back.correlations.first?.metadata.map(\.key) == ["sourceVersion", "HKWasUserEntered", "Arm"])
        #expect(back.correlations.first?.metadata.map(\.value) == ["7.1", "1", "left"])
    }

    // MARK: Clinical records: the resource unchanged, and a record without a date always given

    /// A DSTU2 lab result as Apple writes them (pretty-printed, a number whose form must stay, an
    /// escape and a name that is not ASCII), written for this test after the FHIR examples.
    static let observation = """
        {
          "resourceType" : "Observation",
          "id" : "lab-1",
          "code" : { "text" : "HbA1c \\"fasting\\"" },
          "valueQuantity" : { "value" : 6.30, "unit" : "%" },
          "performer" : [ { "display" : "Dr. Renée Okafor" } ]
        }

        """
    static let patient = #"{"resourceType":"Patient","id":"p-1","name":[{"family":"Okafor","given":["Zoë"]}]}"#

    func clinicalArchive(in fixture: StoreFixture) throws -> String {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_US">
             <ExportDate value="2024-11-03 09:15:00 -0500"/>
             <ClinicalRecord type="HKClinicalTypeIdentifierLabResultRecord" identifier="lab-1" sourceName="Example Hospital" sourceURL="https://fhir.example.org/api" fhirVersion="1.0.2" receivedDate="2019-03-05 10:11:12 -0800" resourceFilePath="/clinical-records/Observation-lab-1.json"/>
             <ClinicalRecord type="HKClinicalTypeIdentifierMedicationRecord" identifier="med-1" sourceName="Example Hospital" fhirVersion="4.0.1" receivedDate="2021-01-02 12:00:00 +0000" resourceFilePath="/clinical-records/MedicationRequest-med-1.json"/>
            </HealthData>

            """
        return try ZipFixtures.make([("apple_health_export/export.xml", Data(xml.utf8)),
                                     ("apple_health_export/clinical-records/Observation-lab-1.json", Data(Self.observation.utf8)),
                                     ("apple_health_export/clinical-records/Patient-p-1.json", Data(Self.patient.utf8))],
                                    in: fixture.directory, name: "clinical.zip")
    }

    @Test func aClinicalResourceIsKeptAsTheFileWroteIt() throws {
        let fixture = try StoreFixture()
        let input = try clinicalArchive(in: fixture)
        let store = try fixture.open()
        #expect(try store.importExport(input).stored.records["clinical"]?.new == 3)
        let exported = try exportedLines(ClinicalKind.self, from: store, in: fixture.directory)
        #expect(exported == (try convertedLines(ClinicalKind.self, input, in: fixture.directory)))
        let byKey = try Dictionary(uniqueKeysWithValues: lines(exported).map { line in
            let record = try object(line)
            return ((record["identifier"] as? String) ?? (record["file"] as? String ?? ""), (line, record))
        })
        // The number as written (6.30, not 6.3), the escape and the name, the same JSON value as the file.
        let lab = try #require(byKey["lab-1"])
        #expect(lab.0.contains(#""value":6.30,"#) && lab.0.contains("Dr. Renée Okafor") && lab.0.contains(#"HbA1c \"fasting\""#), "\(lab.0)")
        let resource = try #require(lab.1["resource"] as? NSDictionary)
        #expect(resource == (try JSONSerialization.jsonObject(with: Data(Self.observation.utf8)) as? NSDictionary))
        #expect(lab.1["receivedDate"] as? String == "2019-03-05T18:11:12Z")
        // The medication's file is not in the archive: listed with the problem, without a resource.
        let medication = try #require(byKey["med-1"]?.1)
        #expect(medication["resource"] is NSNull && (medication["problem"] as? String)?.contains("is not in the archive") == true)
        // Read back as records, the resource's bytes are those of the line.
        let records = CollectingSink()
        try ExportQuery(store).records(ClinicalKind.self, to: records)
        let read = CollectingSink()
        try convert(ClinicalKind.self, input, into: read)
        #expect(records.clinical == read.clinical)
        #expect(records.clinical.first { $0.identifier == "lab-1" }?.resource.map { String(decoding: $0, as: UTF8.self) }?.contains("6.30") == true)
    }

    /// `--since`/`--until` apply to a clinical record's received date; the patient no record names has
    /// none and is always given. The kinds' stored lines and their records agree.
    @Test func aClinicalRecordWithoutADateIsAlwaysGiven() throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        try store.importExport(try clinicalArchive(in: fixture))
        let since2020 = MetricFilter(since: 1_577_836_800), until2020 = MetricFilter(until: 1_577_836_800)
        func given(_ filter: MetricFilter) throws -> [String] {
            let fromLines = try lines(exportedLines(ClinicalKind.self, from: store, filter: filter, in: fixture.directory)).map {
                try object($0)["identifier"] as? String ?? "no identifier"
            }
            let records = CollectingSink()
            try ExportQuery(store).records(ClinicalKind.self, filter: filter, to: records)
            #expect(records.clinical.map { $0.identifier ?? "no identifier" } == fromLines)
            return fromLines
        }
        #expect(try given(.all).sorted() == ["lab-1", "med-1", "no identifier"])
        #expect(try given(since2020).sorted() == ["med-1", "no identifier"])
        #expect(try given(until2020).sorted() == ["lab-1", "no identifier"])
    }

    // MARK: Routes and ECGs, stored in their tables and exported

    static let gpx = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="Apple Health Export" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
        <trkpt lon="2.352200" lat="48.856600"><ele>35.1</ele><time>2024-11-02T08:00:05Z</time><extensions><speed>2.5</speed><course>90.5</course><hAcc>3.2</hAcc><vAcc>2.1</vAcc></extensions></trkpt>
        <trkpt lon="2.352300" lat="48.856700"><ele>35.4</ele><time>2024-11-02T08:00:06Z</time><extensions><speed>-1</speed><course>-1</course><hAcc>3.0</hAcc><vAcc>2.0</vAcc></extensions></trkpt>
        <trkpt lon="2.352400" lat="48.856800"><time>2024-11-02T08:00:07Z</time></trkpt>
        </trkseg></trk></gpx>
        """

    static let export = """
        <?xml version="1.0" encoding="UTF-8"?>
        <HealthData locale="en_US">
         <ExportDate value="2024-11-03 10:00:00 +0000"/>
         <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="Watch" startDate="2024-11-02 09:00:00 +0100" endDate="2024-11-02 09:30:00 +0100">
          <WorkoutRoute sourceName="Watch" startDate="2024-11-02 09:00:00 +0100" endDate="2024-11-02 09:30:00 +0100">
           <FileReference path="/workout-routes/route_2024-11-02_9.00am.gpx"/>
          </WorkoutRoute>
         </Workout>
         <Workout workoutActivityType="HKWorkoutActivityTypeWalking" duration="20" durationUnit="min" sourceName="iPhone" startDate="2016-05-01 18:00:00 +0200" endDate="2016-05-01 18:20:00 +0200">
          <WorkoutRoute sourceName="iPhone" startDate="2016-05-01 18:00:00 +0200" endDate="2016-05-01 18:20:00 +0200">
           <Location date="2016-05-01 18:00:05 +0200" latitude="48.8566" longitude="2.3522" altitude="35.1" horizontalAccuracy="3.2" verticalAccuracy="2.1" course="-1" speed="1.5"/>
           <Location date="2016-05-01 18:00:06 +0200" latitude="48.8567" longitude="2.3523" altitude="35.4" horizontalAccuracy="3.0" verticalAccuracy="2.0" course="12" speed="1.6"/>
          </WorkoutRoute>
         </Workout>
        </HealthData>

        """

    /// Voltages whose last digits must survive: the store keeps each as its 64 bits.
    static let ecg = "Name,Alex\nRecorded Date,2023-03-04 20:55:07 -0500\nClassification,Sinus Rhythm\nSymptoms,\n"
        + "Software Version,1.90\nDevice,\"Watch6,7\"\nSample Rate,512 hertz\n\n\nLead,Lead I\nUnit,µV\n\n"
        + "-107.825\n-121.163\n14.5\n0.1\n-0.000123456789\n1e-300\n"

    func routesAndECG(in fixture: StoreFixture) throws -> String {
        try ZipFixtures.make([("apple_health_export/export.xml", Data(Self.export.utf8)),
                              ("apple_health_export/workout-routes/route_2024-11-02_9.00am.gpx", Data(Self.gpx.utf8)),
                              ("apple_health_export/electrocardiograms/ecg_2023-03-04.csv", Data(Self.ecg.utf8))],
                             in: fixture.directory, name: "routes.zip")
    }

    @Test func routesAreStoredPointForPointAndExportedAsRead() throws {
        let fixture = try StoreFixture()
        let input = try routesAndECG(in: fixture)
        let read = CollectingSink()
        try convert(RouteKind.self, input, into: read)
        let store = try fixture.open()
        let imported = try store.importExport(input)
        #expect(imported.stored.records["routes"]?.new == 2)
        #expect(try store.database.scalarInt("SELECT count(*) FROM route_point") == 5)
        #expect(try store.importExport(input).stored.records["routes"]?.already == 2)
        #expect(try store.database.scalarInt("SELECT count(*) FROM route_point") == 5)   // no point twice

        let back = CollectingSink()
        try ExportQuery(store).records(RouteKind.self, to: back)
        #expect(back.routes == read.routes)
        let gpx = try #require(back.routes.first { $0.file != nil })
        #expect(gpx.file == "workout-routes/route_2024-11-02_9.00am.gpx" && gpx.workoutType == "HKWorkoutActivityTypeRunning")
        #expect(gpx.points.first == RoutePoint(time: 1_730_534_405, latitude: 48.8566, longitude: 2.3522, elevation: 35.1, speed: 2.5,
                                               course: 90.5, horizontalAccuracy: 3.2, verticalAccuracy: 2.1))
        // Unknown values (Core Location's -1, a point without them) stay unknown: NULL, not 0.
        #expect(gpx.points[1].speed == nil && gpx.points[1].course == nil && gpx.points[2].elevation == nil)
        let inline = try #require(back.routes.first { $0.file == nil })
        #expect(inline.workoutType == "HKWorkoutActivityTypeWalking" && inline.points.map(\.course) == [nil, 12])

        // The queries that draw one: every route without its points, oldest first, then one by its workout.
        let summaries = try RouteQuery(store).routeSummaries()
        #expect(summaries.map(\.pointCount) == [2, 3] && summaries.map(\.workoutType) == ["HKWorkoutActivityTypeWalking", "HKWorkoutActivityTypeRunning"])
        let drawn = try #require(try RouteQuery(store).route(at: 1_730_534_400, maxPoints: 2))
        #expect(drawn.points.count == 2 && drawn.points.first == gpx.points.first && drawn.points.last == gpx.points.last)
        // A date filter keeps the routes of its span.
        let recent = CollectingSink()
        #expect(try ExportQuery(store).records(RouteKind.self, filter: MetricFilter(since: 1_700_000_000), to: recent) == 1)
        #expect(recent.routes.first?.file == gpx.file)
    }

    /// A GPX file whose route is stored is not read again (re-reading every route of a large export
    /// cost a tenth of its second import): the same export again, its GPX file now damaged, counts
    /// the route as there, with its points, and reports no damage; with a date filter the file is
    /// read (its route's date decides whether it counts), and the damage is reported.
    @Test func aStoredRoutesFileIsNotReadAgain() throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        #expect(try store.importExport(try routesAndECG(in: fixture)).stored.records["routes"]?.new == 2)
        let damaged = try ZipFixtures.make([("apple_health_export/export.xml", Data(Self.export.utf8)),
                                            ("apple_health_export/workout-routes/route_2024-11-02_9.00am.gpx", Data("not a GPX file".utf8))],
                                           in: fixture.directory, name: "damaged-route.zip")
        let again = try store.importExport(damaged)
        #expect(again.stored.records["routes"]?.new == 0 && again.stored.records["routes"]?.already == 2)
        #expect(again.archive.count("routes") == RecordCount(records: 2, parts: 5))
        #expect(again.archive.damaged.isEmpty)

        let filtered = try store.importExport(damaged, filter: MetricFilter(since: 1_000_000_000))
        #expect(filtered.archive.damaged.map(\.entry) == ["apple_health_export/workout-routes/route_2024-11-02_9.00am.gpx"])
        #expect(try store.database.scalarInt("SELECT count(*) FROM route_point") == 5)
    }

    @Test func anECGsVoltagesComeBackBitForBit() throws {
        let fixture = try StoreFixture()
        let input = try routesAndECG(in: fixture)
        let store = try fixture.open()
        #expect(try store.importExport(input).stored.records["ecg"]?.new == 1)
        #expect(try store.importExport(input).stored.records["ecg"]?.already == 1)
        let back = CollectingSink()
        try ExportQuery(store).records(ECGKind.self, to: back)
        let read = CollectingSink()
        try convert(ECGKind.self, input, into: read)
        #expect(back.ecgs == read.ecgs)
        let ecg = try #require(back.ecgs.first)
        let written: [Double] = [-107.825, -121.163, 14.5, 0.1, -0.000123456789, 1e-300]
        #expect(ecg.samples.map(\.bitPattern) == written.map(\.bitPattern))
        #expect(ecg.recordedAt == 1_677_981_307 && ecg.sampleRateHz == 512 && ecg.device == "Watch6,7" && ecg.unit == "µV")
        #expect(try exportedLines(ECGKind.self, from: store, in: fixture.directory) == (try convertedLines(ECGKind.self, input, in: fixture.directory)))
        // The query that shows one: its classification, and its voltages thinned to what is asked.
        let listed = try ECGQuery(store).ecgs()
        #expect(listed.map(\.sampleCount) == [6] && listed.first?.samples == nil && listed.first?.classification == "Sinus Rhythm")
        let shown = try #require(try ECGQuery(store).ecg(recordedAt: 1_677_981_307, maxSamples: 3))
        #expect(shown.samples?.count == 3 && shown.samples?.first == -107.825 && shown.samples?.last == 1e-300)
        #expect(shown.samplesRateHz == 256)
    }

    /// The GeoJSON writer takes routes only: another kind is refused loudly, never dropped.
    @Test func aSinkThatCannotHoldAKindRefusesIt() throws {
        let directory = try makeTemporaryDirectory()
        let sink = GeoJSONSink(output: try OutputFile.create(directory.appendingPathComponent("routes.json").path, durable: false))
        #expect(throws: ConversionError.self) {
            try sink.write(Audiogram(type: "t", startDate: 0, endDate: 0, sourceApp: "", metadata: [], points: []), as: AudiogramKind.self)
        }
    }
}
