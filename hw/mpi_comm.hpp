// The few MPI calls multi-process mode needs, wrapped so the rest of hw/ deals in strings: init/finalize, sending
// and probing byte messages, gathering every rank's bytes, and agreeing on whether every rank succeeded. All MPI
// calls are made from one thread per process (MPI_THREAD_FUNNELED).
#pragma once

#include <string>
#include <vector>

namespace dualpath::hw::mpi {

// Initialises MPI once per process (idempotent); returns false, with the reason, when this build has no MPI.
bool init(std::string& why_not);
void finalize();
int rank();
int size();
void barrier();

void send(int dest, int tag, const std::string& bytes);
// Non-blocking send: the bytes are kept until MPI is done with them. A large message waits for its receiver, which
// may be hung; a sender that must stay responsive (the scheduler) posts instead of sending.
void post(int dest, int tag, std::string bytes);
// Frees the posted sends that completed; call it regularly (the scheduler's poller does).
void progress_posts();
// Non-blocking: receives one waiting message from `source` (-1: any) with `tag` (-1: any), if there is one.
bool try_recv(int source, int tag, std::string& bytes, int& from, int& got_tag);
// Every rank's bytes, in rank order.
std::vector<std::string> allgather(const std::string& bytes);
// Collective: every rank says whether its step succeeded; returns "" if all did, else the first failure, prefixed
// with its rank, so every rank can stop together instead of waiting on a dead partner.
std::string agree(const std::string& my_error);

}  // namespace dualpath::hw::mpi
