import CloudSyncModel
import CloudSyncInputs
import CloudSyncStore
import Hummingbird
import Logging

extension Receiver {
    /// A write the store did not take, as its answer.
    struct RefusedWrite: Error { var response: Response }

    /// A contract's samples into the patient's store, in one transaction (`importMetrics`): what it
    /// stored, or the answer that says why not (`refusal`), said in the log as the handler's errors are.
    func storeReceived(_ samples: [HealthMetric], of owner: String, as origin: ImportOrigin,
                       path: String) async -> Result<StoreImportResult, RefusedWrite> {
        await storeReceived(ReceivedMetrics(samples), of: owner, as: origin, path: path)
    }

    func storeReceived(_ samples: ReceivedMetrics, of owner: String, as origin: ImportOrigin,
                       path: String) async -> Result<StoreImportResult, RefusedWrite> {
        switch await stores.write(owner: owner, { try $0.importMetrics(samples, origin: origin) }) {
        case .success(let result): return .success(result)
        case .failure(let error):
            let response = Self.refusal(error)
            let text = "POST \(path) of \(owner): \(error); answered \(response.status.code)"
            if response.status == .internalServerError { logger.error("\(text)") } else { logger.warning("\(text)") }
            return .failure(RefusedWrite(response: response))
        }
    }
}
