#include "guard/base/progress.hpp"

#include <algorithm>
#include <cstdio>
#include <unistd.h>

namespace guard {

Progress::Progress(std::string title, std::size_t total, int fd, std::chrono::milliseconds delay)
    : m_title(std::move(title)), m_total(total), m_fd(fd), m_tty(::isatty(fd) == 1),
      m_start(std::chrono::steady_clock::now()), m_last_draw(m_start), m_delay(delay)
{
}

Progress::~Progress() { done(); }

void Progress::update(std::size_t done)
{
    m_done = done;
    if (!m_tty || m_finished)
        return;
    auto now = std::chrono::steady_clock::now();
    // Redrawn at most ten times a second, as git's progress.c does with its timer.
    if (now - m_start < m_delay || (m_shown && now - m_last_draw < std::chrono::milliseconds(100)))
        return;
    m_last_draw = now;
    draw(false);
}

void Progress::done()
{
    if (m_finished)
        return;
    m_finished = true;
    if (m_shown) // a step that ended before its delay leaves no trace
        draw(true);
}

void Progress::draw(bool last)
{
    m_shown = true;
    char line[256];
    int n = m_total ? std::snprintf(line, sizeof line, "\r%s: %3zu%% (%zu/%zu)%s", m_title.c_str(),
                                    m_done * 100 / m_total, m_done, m_total, last ? ", done.\n" : "")
                    : std::snprintf(line, sizeof line, "\r%s: %zu%s", m_title.c_str(), m_done,
                                    last ? ", done.\n" : "");
    if (n > 0 && ::write(m_fd, line, static_cast<size_t>(std::min(n, static_cast<int>(sizeof line) - 1))) < 0) {
        m_tty = false; // a terminal that went away gets no more lines
    }
}

} // namespace guard
