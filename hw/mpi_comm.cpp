#include "hw/mpi_comm.hpp"

#include <mpi.h>

#include <deque>
#include <iterator>
#include <memory>
#include <stdexcept>

namespace dualpath::hw::mpi {

namespace {
void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    throw std::runtime_error(std::string("MPI ") + what + ": " + std::string(text, len));
  }
}
}  // namespace

bool init(std::string& why_not) {
  int inited = 0;
  MPI_Initialized(&inited);
  if (inited) return true;
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    why_not = "MPI_Init_thread failed";
    return false;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);  // errors become exceptions, not silent aborts
  return true;
}

void finalize() {
  int inited = 0, finalized = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&finalized);
  if (inited && !finalized) MPI_Finalize();
}

int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int size() {
  int s = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

void barrier() { check(MPI_Barrier(MPI_COMM_WORLD), "barrier"); }

void send(int dest, int tag, const std::string& bytes) {
  check(MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, dest, tag, MPI_COMM_WORLD), "send");
}

bool try_recv(int source, int tag, std::string& bytes, int& from, int& got_tag) {
  int flag = 0;
  MPI_Status st;
  check(MPI_Iprobe(source < 0 ? MPI_ANY_SOURCE : source, tag < 0 ? MPI_ANY_TAG : tag, MPI_COMM_WORLD, &flag, &st),
        "iprobe");
  if (!flag) return false;
  int n = 0;
  MPI_Get_count(&st, MPI_BYTE, &n);
  bytes.resize(static_cast<size_t>(n));
  check(MPI_Recv(bytes.data(), n, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "recv");
  from = st.MPI_SOURCE;
  got_tag = st.MPI_TAG;
  return true;
}

namespace {
struct Posted {
  MPI_Request req;
  std::unique_ptr<std::string> bytes;  // stable address while MPI reads it
};
std::deque<Posted>& posted() {
  static std::deque<Posted> q;
  return q;
}
}  // namespace

void post(int dest, int tag, std::string bytes) {
  Posted p{MPI_REQUEST_NULL, std::make_unique<std::string>(std::move(bytes))};
  check(MPI_Isend(p.bytes->data(), static_cast<int>(p.bytes->size()), MPI_BYTE, dest, tag, MPI_COMM_WORLD, &p.req),
        "isend");
  posted().push_back(std::move(p));
  progress_posts();
}

void progress_posts() {
  auto& q = posted();
  for (auto it = q.begin(); it != q.end();) {
    int done = 0;
    check(MPI_Test(&it->req, &done, MPI_STATUS_IGNORE), "test");
    it = done ? q.erase(it) : std::next(it);
  }
}

std::vector<std::string> allgather(const std::string& bytes) {
  const int n = size();
  int mine = static_cast<int>(bytes.size());
  std::vector<int> lens(n), offs(n);
  check(MPI_Allgather(&mine, 1, MPI_INT, lens.data(), 1, MPI_INT, MPI_COMM_WORLD), "allgather");
  int total = 0;
  for (int i = 0; i < n; ++i) offs[i] = total, total += lens[i];
  std::string all(static_cast<size_t>(total), '\0');
  check(MPI_Allgatherv(bytes.data(), mine, MPI_BYTE, all.data(), lens.data(), offs.data(), MPI_BYTE, MPI_COMM_WORLD),
        "allgatherv");
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(all.substr(offs[i], lens[i]));
  return out;
}

std::string agree(const std::string& my_error) {
  const auto all = allgather(my_error);
  for (size_t r = 0; r < all.size(); ++r)
    if (!all[r].empty()) return "rank " + std::to_string(r) + ": " + all[r];
  return "";
}

}  // namespace dualpath::hw::mpi
