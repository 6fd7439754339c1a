#!/bin/sh
# The example's judge: deterministic, no AI service. The runtime asks it, in a hidden prompt
# on standard input, either which event a Boss message means or which outcome a player's
# output supports; it answers with one JSON object, reading the marked lines the example's
# players print (QUESTION:, VERDICT:, NOTES:).
prompt=$(cat)

# A JSON string's contents: backslashes and quotes escaped, on one line.
json() {
  printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' | tr '\n\r\t' '   '
}

case $prompt in
  *"Decide which event Boss's message below means"*)
    case $prompt in
      *"Pending questions: none"*) echo '{"type": "START"}' ;;
      *) echo '{"type": "BOSS_REPLY"}' ;;
    esac
    exit 0
    ;;
esac

marked() {
  printf '%s\n' "$prompt" | sed -n "s/^$1: //p" | head -n 1
}
question=$(marked QUESTION)
verdict=$(marked VERDICT)
if [ -n "$question" ]; then
  echo "{\"guard\": \"needsBossReply\", \"question\": \"$(json "$question")\"}"
elif [ "$verdict" = approved ]; then
  echo '{"guard": "approved"}'
elif [ "$verdict" = changes ]; then
  echo "{\"guard\": \"changes\", \"notes\": \"$(json "$(marked NOTES)")\"}"
else
  # Anything else is the step's first outcome (a writer's draft).
  first=$(printf '%s\n' "$prompt" | sed -n 's/^- `\([A-Za-z_$][A-Za-z0-9_$]*\)`: .*/\1/p' | head -n 1)
  echo "{\"guard\": \"$first\"}"
fi
