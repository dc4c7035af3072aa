#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace guard {

// A meter on stderr for a long step, as git prints one ("Saving: 42% (420/1000)"): shown
// only when `fd` is a terminal and the step has lasted longer than `delay`; nothing
// otherwise. Call update() as the work goes; the destructor (or done()) ends the line.
//
// Where the engine calls it: once per staged path while a save stages the working state
// (`Progress meter("Saving", paths.size()); … meter.update(i + 1);`).
class Progress {
public:
    Progress(std::string title, std::size_t total, int fd = 2,
             std::chrono::milliseconds delay = std::chrono::milliseconds(1000));
    ~Progress();
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

    void update(std::size_t done);
    void done();

private:
    void draw(bool last);

    std::string m_title;
    std::size_t m_total;
    std::size_t m_done = 0;
    int m_fd;
    bool m_tty;
    bool m_shown = false;
    bool m_finished = false;
    std::chrono::steady_clock::time_point m_start;
    std::chrono::steady_clock::time_point m_last_draw;
    std::chrono::milliseconds m_delay;
};

} // namespace guard
