# frozen_string_literal: true

# bindings/ruby/test/test_helper.rb: loads minitest and the library for the Ruby binding's
# tests (run with ruby -Ilib -I<extension dir> test/test_graft.rb).

require "minitest/autorun"
require "graft"

module GraftTestHelper
  # This process's resident set size in KiB.
  def rss_kib
    File.foreach("/proc/self/status") { |line| return line.split[1].to_i if line.start_with?("VmRSS:") }
    raise "no VmRSS in /proc/self/status"
  end

  # A token no other test uses.
  def unique_token(prefix)
    @token_count = (@token_count || 0) + 1
    "#{prefix}_#{Process.pid}_#{object_id}_#{@token_count}"
  end
end
