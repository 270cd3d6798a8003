#pragma once

#include <grpcpp/grpcpp.h>

#include <exception>
#include <new>
#include <string>
#include <utility>

#include "pathcore/mask.h"
#include "service/rpc_status.h"
#include "store/mask_store.h"

namespace pathserver {

// Runs a handler body, turning escaped exceptions into statuses (every
// handler, in the files of the RPC families and their call plumbing).
template <typename Body>
grpc::Status run_handler(Body&& body) {
  grpc::Status status;
  try {
    status = std::forward<Body>(body)();
  } catch (const pathcore::Interrupted&) {
    throw;  // the caller knows why (deadline, cancellation, shutdown)
  } catch (const pathcore::InvalidArgument& e) {
    status = invalid(e.what());
  } catch (const InvalidMaskName& e) {
    status = invalid(e.what());
  } catch (const StoreLimitExceeded& e) {
    status = {grpc::StatusCode::RESOURCE_EXHAUSTED, e.what()};
  } catch (const StoreFull& e) {
    status = {grpc::StatusCode::RESOURCE_EXHAUSTED, e.what()};
  } catch (const StoreUnavailable& e) {  // transient: the database is back soon
    status = {grpc::StatusCode::UNAVAILABLE, e.what()};
  } catch (const StoreError& e) {  // names the mask only; the store logged the path
    status = {grpc::StatusCode::INTERNAL, e.what()};
  } catch (const std::bad_alloc&) {
    status = {grpc::StatusCode::RESOURCE_EXHAUSTED, "out of memory"};
  } catch (const std::exception& e) {
    status = {grpc::StatusCode::INTERNAL, std::string("internal error: ") + e.what()};
  }
  return status;
}

}  // namespace pathserver
