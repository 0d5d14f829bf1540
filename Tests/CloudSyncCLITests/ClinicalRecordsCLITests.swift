import CloudSyncTesting
import Foundation
import Testing
import ZIPFoundation

/// `--kind clinical`: export.xml's `ClinicalRecord`s joined to their FHIR resources (DSTU2 and R4),
/// the resources unchanged; missing, damaged, hostile files reported, and the rest converted.
@Suite struct ClinicalRecordsCLITests {
    /// A DSTU2 lab result, pretty-printed as Apple writes them, with a number whose form must stay
    /// (`6.30`), an escape and a non-ASCII name. Written for this test after the FHIR examples.
    static let observation = """
        {
          "resourceType" : "Observation",
          "id" : "lab-hba1c-1",
          "status" : "final",
          "category" : { "coding" : [ { "system" : "http://hl7.org/fhir/observation-category", "code" : "laboratory" } ] },
          "code" : { "coding" : [ { "system" : "http://loinc.org", "code" : "4548-4", "display" : "Hemoglobin A1c/Hemoglobin.total in Blood" } ],
                     "text" : "HbA1c \\"fasting\\"" },
          "effectiveDateTime" : "2019-03-01T08:30:00-08:00",
          "valueQuantity" : { "value" : 6.30, "unit" : "%", "system" : "http://unitsofmeasure.org", "code" : "%" },
          "performer" : [ { "display" : "Dr. Renée Okafor" } ]
        }

        """
    /// An R4 immunization.
    static let immunization = """
        {"resourceType":"Immunization","id":"imm-flu-2020","status":"completed",
         "vaccineCode":{"coding":[{"system":"http://hl7.org/fhir/sid/cvx","code":"158","display":"influenza, injectable, quadrivalent"}]},
         "patient":{"reference":"Patient/p-1"},"occurrenceDateTime":"2020-10-14","primarySource":true,
         "lotNumber":"AB1234","doseQuantity":{"value":0.5,"unit":"mL"}}
        """
    /// An R4 patient that no ClinicalRecord names.
    static let patient = #"{"resourceType":"Patient","id":"p-1","name":[{"family":"Okafor","given":["Zoë"]}],"birthDate":"1980-01-01"}"#

    static func clinicalRecord(_ type: String, _ id: String, version: String, received: String, file: String) -> String {
        " <ClinicalRecord type=\"HKClinicalTypeIdentifier\(type)\" identifier=\"\(id)\" sourceName=\"Example Hospital\" sourceURL=\"https://fhir.example.org/api\" fhirVersion=\"\(version)\" receivedDate=\"\(received)\" resourceFilePath=\"/clinical-records/\(file)\"/>\n"
    }

    static let exportXML = """
        <?xml version="1.0" encoding="UTF-8"?>
        <HealthData locale="en_US">
         <ExportDate value="2024-11-03 09:15:00 -0500"/>
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="iPhone" unit="count" startDate="2024-11-02 07:00:00 -0500" endDate="2024-11-02 07:10:00 -0500" value="120"/>

        """
        + clinicalRecord("LabResultRecord", "lab-hba1c-1", version: "1.0.2", received: "2019-03-05 10:11:12 -0800", file: "Observation-lab-hba1c-1.json")
        + clinicalRecord("ImmunizationRecord", "imm-flu-2020", version: "4.0.1", received: "2020-10-15 09:00:00 +0200", file: "Immunization-imm-flu-2020.json")
        + clinicalRecord("MedicationRecord", "med-1", version: "4.0.1", received: "2021-01-02 12:00:00 +0000", file: "MedicationRequest-med-1.json")
        + clinicalRecord("ConditionRecord", "cond-1", version: "4.0.1", received: "2021-01-03 12:00:00 +0000", file: "Condition-cond-1.json")
        + clinicalRecord("ProcedureRecord", "proc-1", version: "4.0.1", received: "2021-01-04 12:00:00 +0000", file: "Procedure-proc-1.json")
        + clinicalRecord("AllergyRecord", "all-1", version: "4.0.1", received: "2021-01-05 12:00:00 +0000", file: "AllergyIntolerance-all-1.json")
        + "</HealthData>\n"

    /// The archive: two good resources, a patient nobody names, no file for the medication, a file
    /// that is not JSON, one nested a million deep and one of 200 MB.
    func archive() throws -> String {
        let url = try makeTemporaryDirectory().appendingPathComponent("export.zip")
        let zip = try Archive(url: url, accessMode: .create)
        func add(_ path: String, size: Int, _ bytes: @escaping (Int, Int) -> Data) throws {
            try zip.addEntry(with: "apple_health_export/" + path, type: .file, uncompressedSize: Int64(size),
                             compressionMethod: .deflate) { position, count in bytes(Int(position), count) }
        }
        func add(_ path: String, _ text: String) throws {
            let data = Data(text.utf8)
            try add(path, size: data.count) { data.subdata(in: $0..<($0 + $1)) }
        }
        try add("clinical-records/Observation-lab-hba1c-1.json", Self.observation)
        try add("export.xml", Self.exportXML)
        try add("clinical-records/Immunization-imm-flu-2020.json", Self.immunization)
        try add("clinical-records/Patient-p-1.json", Self.patient)
        try add("clinical-records/Condition-cond-1.json", "{\"resourceType\": \"Condition\", \"id\": ")
        let depth = 1_000_000
        try add("clinical-records/Procedure-proc-1.json", size: 2 * depth) { position, count in
            Data((position..<(position + count)).map { $0 < depth ? UInt8(ascii: "[") : UInt8(ascii: "]") })
        }
        try add("clinical-records/AllergyIntolerance-all-1.json", size: 200 << 20) { _, count in Data(repeating: 0x20, count: count) }
        return url.path
    }

    func lines(_ result: CLIResult) -> [[String: Any]] {
        result.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    @Test func convertImportExportKeepEveryResourceUnchangedAndReportTheRest() throws {
        let input = try archive()
        let converted = try CLI.run(["convert", input, "--kind", "clinical"])
        #expect(converted.status == 0, "\(converted.stderr)")
        let records = lines(converted)
        #expect(records.count == 7 && converted.lines.filter { !$0.isEmpty }.count == 7)
        let byID = Dictionary(uniqueKeysWithValues: records.map { (($0["identifier"] as? String) ?? ($0["file"] as! String), $0) })

        // Unchanged: the same JSON value as the file (read by Python's json, an independent parser),
        // and numbers as written.
        let lab = try #require(byID["lab-hba1c-1"])
        #expect(lab["type"] as? String == "HKClinicalTypeIdentifierLabResultRecord")
        #expect(lab["fhirVersion"] as? String == "1.0.2" && lab["receivedDate"] as? String == "2019-03-05T18:11:12Z")
        #expect(lab["file"] as? String == "clinical-records/Observation-lab-hba1c-1.json")
        #expect(lab["problem"] is NSNull)
        #expect(converted.lines.contains { $0.contains("\"value\":6.30,") && $0.contains("Dr. Renée Okafor") })
        let same = try CLI.run(["python3", "-c", """
            import json, sys
            lines = [json.loads(l) for l in sys.stdin]
            files = {"Observation": sys.argv[1], "Immunization": sys.argv[2], "Patient": sys.argv[3]}
            for line in lines:
                r = line["resource"]
                if r is not None:
                    print(r["resourceType"], r == json.loads(files[r["resourceType"]]))
            """, Self.observation, Self.immunization, Self.patient], stdinBytes: converted.stdout, tool: "/usr/bin/env")
        #expect(String(decoding: same.stdout, as: UTF8.self) == "Observation True\nImmunization True\nPatient True\n", "\(same.stderr)")

        #expect((byID["imm-flu-2020"]?["resource"] as? [String: Any])?["lotNumber"] as? String == "AB1234")
        #expect((byID["clinical-records/Patient-p-1.json"]?["problem"] as? String)?.contains("no ClinicalRecord") == true)
        // Listed with the problem, without a resource.
        let problems = ["med-1": "is not in the archive", "cond-1": "not JSON", "proc-1": "nested deeper than 100 levels",
                        "all-1": "larger than 64 MiB"]
        for (id, problem) in problems {
            let record = try #require(byID[id])
            #expect(record["resource"] is NSNull, "\(id)")
            #expect((record["problem"] as? String)?.contains(problem) == true, "\(id): \(record["problem"] ?? "")")
        }
        #expect(converted.stderr.contains("7 clinical records; 4 clinical records without their FHIR resource"), "\(converted.stderr)")
        #expect(converted.stderr.contains("Condition-cond-1.json): skipped: not JSON: line 1: the file ends inside the JSON value"),
                "\(converted.stderr)")

        // From a pipe, the resources that stream past before export.xml are kept, then joined.
        let piped = try CLI.run(["convert", "-", "--kind", "clinical"], stdinBytes: try Data(contentsOf: URL(fileURLWithPath: input)))
        #expect(Set(piped.lines) == Set(converted.lines), "\(piped.stderr)")

        let store = try makeTemporaryDirectory().appendingPathComponent("staging.sqlite").path
        let imported = try CLI.run(["import", input, "--store", store])
        #expect(imported.status == 0 && imported.stderr.contains("7 clinical records new"), "\(imported.stderr)")
        let again = try CLI.run(["import", input, "--store", store])
        #expect(again.status == 0 && again.stderr.contains("0 clinical records new (7 already there)"), "\(again.stderr)")
        let exported = try CLI.run(["export", "--store", store, "--kind", "clinical"])
        #expect(exported.stdout == converted.stdout)
        let status = try CLI.run(["status", "--store", store, "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: status.stdout) as? [String: Any])
        #expect((json["records"] as? [String: [String: Int]])?["clinical"]?["records"] == 7)
        let inspect = try CLI.run(["inspect", input])
        let inspectText = String(decoding: inspect.stdout, as: UTF8.self)
        #expect(inspectText.contains("  7 clinical records\n") && inspectText.contains("4 clinical records without their FHIR resource"), "\(inspectText)")
    }
}
