//go:build windows

package proxy

import (
	"fmt"
	"os/exec"
	"unsafe"

	"golang.org/x/sys/windows"
)

// startTied starts cmd in a job object that kills every process in it
// when its last handle closes (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE). wrap
// holds the only handle, not inheritable, so the job closes when wrap
// ends, however it ends (Windows closes a dead process's handles), and the
// command ends with it, never left calling a proxy that is gone. It is
// closed when the command has exited too, ending what the command left
// running in it.
//
// The command joins the job just after it starts: a process it starts in
// that first instant escapes the job. If the job cannot be made or joined
// (an old Windows that forbids nested jobs), the command runs untied, and
// warn says so.
func startTied(cmd *exec.Cmd, warn func(string)) (wait func() error, err error) {
	job, jerr := killOnCloseJob()
	if err := cmd.Start(); err != nil {
		if jerr == nil {
			windows.CloseHandle(job)
		}
		return nil, err
	}
	if jerr == nil {
		if jerr = assign(job, cmd.Process.Pid); jerr != nil {
			windows.CloseHandle(job)
		}
	}
	if jerr != nil {
		warn(fmt.Sprintf("the command will not end with wrap if wrap is killed: %v", jerr))
		return cmd.Wait, nil
	}
	return func() error {
		err := cmd.Wait()
		windows.CloseHandle(job)
		return err
	}, nil
}

func killOnCloseJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("creating a job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, fmt.Errorf("setting the job object's limits: %w", err)
	}
	return job, nil
}

func assign(job windows.Handle, pid int) error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return fmt.Errorf("opening the command's process: %w", err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		return fmt.Errorf("adding the command to a job object: %w", err)
	}
	return nil
}
